#pragma once
// The end-to-end fixture: the real opbench binary run in a shell, its exit code, stdout and
// stderr captured, results written into a temporary directory.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "opbench/core/json.hpp"
#include "temp_dir.hpp"

namespace opbench {

using testing::TempDir;

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

const std::string k_data = OPBENCH_TEST_DATA;
// Quick stopping settings: these tests check behaviour, not timings.
const std::string k_quick_stopping = " --threads 1 --warmup 1 --runs 3 --min-time 0 "
                                     "--max-time 0.02 --block-time 0.0001 --process-warmup 0";
// And in one process: each opbench process pays LibTorch's start (about 0.5 s of CPU), and a run
// of the default three processes starts four. A test of the processes themselves (how they
// split, pool, fail, are killed) takes k_quick_stopping and says how many it wants.
const std::string k_quick = k_quick_stopping + " --processes 1";

class Cli : public ::testing::Test {
protected:
  // `env`: NAME=VALUE words set for this command only.
  Outcome opbench(const std::string& args, const std::string& env = "") {
    const std::string err_file = m_dir.file("stderr.txt");
    const std::string command = env + " OPBENCH_RESULTS_DIR='" + m_dir.file("results") + "' '" +
                                OPBENCH_BINARY + "' " + args + " 2>'" + err_file + "'";
    Outcome outcome;
    FILE* pipe = ::popen(command.c_str(), "r");
    std::array<char, 4096> buffer{};
    std::size_t n = 0;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
      outcome.out.append(buffer.data(), n);
    const int status = ::pclose(pipe);
    outcome.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    outcome.err = testing::read_text(err_file);
    return outcome;
  }
  Json read_json(const std::string& path) { return Json::parse(testing::read_text(path)); }

  TempDir m_dir;
};

} // namespace opbench
