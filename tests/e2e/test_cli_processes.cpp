// End-to-end: a run killed or split over fresh processes keeps what was measured.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "cli_fixture.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"
#include "opbench/measure/holding.hpp"
#include "opbench/results/store.hpp"

namespace opbench {
namespace {

TEST_F(Cli, KilledRunKeepsFinishedCasesInTheJournal) {
  const std::string out = m_dir.file("killed.json");
  const std::string journal = results::journal_path_for(out);
  const std::string err = m_dir.file("killed.err");
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Many long cases: the run is killed long before it ends.
    const std::string config = k_data + "/tiny.csv";
    ::freopen(err.c_str(), "w", stderr);
    // Its scratch folder (the plan, the child's files) in the test's: a run killed by SIGKILL
    // cannot remove it, and each test run left one in /tmp.
    ::setenv("TMPDIR", m_dir.path().c_str(), 1);
    // One process: this run's own journal, repetition by repetition (--processes: the next test).
    ::execl(OPBENCH_BINARY, OPBENCH_BINARY, "run", "--config", config.c_str(), "--threads", "1",
            "--runs", "3", "--min-time", "0.3", "--max-time", "0.3", "--dtype",
            "float32,float64,float16,bfloat16", "--processes", "1", "--output", out.c_str(),
            static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  // Wait until two cases are in the journal (context line + 2), then kill -9.
  auto lines = [&] {
    std::ifstream in(journal);
    return std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (lines() < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status))
      << "the run ended before it was killed: " << testing::read_text(err);
  EXPECT_FALSE(core::path_exists(out));
  const auto exported = opbench("export --format json --input " + journal);
  ASSERT_EQ(exported.code, 0) << exported.err;
  const Json json = Json::parse(exported.out);
  // The journal held the context and two repetition records (interleaved: of one case or two):
  // export combines the repetitions of the cases that never finished, and loses none.
  ASSERT_GE(json["cases"].size(), 1u);
  EXPECT_LT(json["cases"].size(), 12u);
  std::size_t repetitions = 0;
  for (const auto& c : json["cases"]) {
    if (c["status"] == "skipped") { // a dtype the operator lacks: one record, nothing repeated
      ++repetitions;
      continue;
    }
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_NE(
        c["message"].get<std::string>().find(" of 6 repetitions: the run ended before the others"),
        std::string::npos)
        << c["message"];
    repetitions += c["estimate"]["repetitions"].get<std::size_t>();
  }
  EXPECT_EQ(repetitions, static_cast<std::size_t>(lines() - 1));
}

TEST_F(Cli, RepetitionsSplitOverFreshProcessesArePooledIntoOneResult) {
  // 5 repetitions over 2 processes: 3 in the first, 2 in the second, every case in both.
  const std::string out = m_dir.file("processes.json");
  const auto r = opbench("run --config " + k_data + "/tiny.csv" + k_quick_stopping +
                         " --repetitions 5 --processes 2 --output " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("process 1 of 2: 3 repetition(s) of each case"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("process 2 of 2: 2 repetition(s) of each case"), std::string::npos) << r.err;
  // One line per case, printed by the parent; the plan line before; none of the children's own.
  EXPECT_NE(r.err.find("opbench: plan: 3 case(s) x 5 repetition(s) over 2 fresh processes; about "),
            std::string::npos)
      << r.err;
  std::istringstream lines(r.err);
  int case_lines = 0;
  for (std::string line; std::getline(lines, line);) {
    case_lines += line.rfind("[", 0) == 0;
    EXPECT_EQ(line.find("process-1.json.journal"), std::string::npos) << line;
  }
  EXPECT_EQ(case_lines, 3) << r.err;
  EXPECT_EQ(r.err.find("[process "), std::string::npos) << r.err;
  const Json json = read_json(out);
  EXPECT_EQ(json["context"]["processes"], 2);
  ASSERT_EQ(json["cases"].size(), 3u);
  for (const auto& c : json["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_EQ(c["message"], "");
    EXPECT_EQ(c["estimate"]["repetitions"], 5);
    const auto medians = c["timing"]["repetition_medians"].get<std::vector<double>>();
    ASSERT_EQ(medians.size(), 5u);
    EXPECT_DOUBLE_EQ(c["estimate"]["time"].get<double>(),
                     *std::min_element(medians.begin(), medians.end()));
    // The memory probe ran once (in the first process), the ATen calls were recorded.
    EXPECT_GT(c["memory"]["peak_bytes"].get<double>(), 0.0) << c["case_id"];
    EXPECT_EQ(c["work"]["aten_calls"], 1) << c["case_id"];
  }
  // Both processes' time is accounted for, and their repetitions count in the slow-spell figures:
  // all 15 planned ones (3 cases x 5), and those measured again (a slow spell on this shared
  // machine) within the retry budget of each process (40% of its planned repetitions, rounded
  // down).
  EXPECT_EQ(json["summary"]["slow_spells"]["repetitions"].get<int>(), 15);
  EXPECT_LE(json["summary"]["slow_spells"]["repetitions_measured_again"].get<int>(), 3 + 2);
  EXPECT_GT(json["summary"]["time_spent"]["timed"].get<double>(), 0.0);
  // A case that fails fails in every process, and says which process told it first.
  const std::string failed = m_dir.file("failed.json");
  const auto f = opbench("run --config " + k_data + "/failing.csv" + k_quick_stopping +
                         " --repetitions 2 --processes 2 --output " + failed);
  EXPECT_EQ(f.code, 1) << f.err;
  const Json cases = read_json(failed)["cases"];
  ASSERT_EQ(cases.size(), 3u) << f.err;
  EXPECT_EQ(cases[1]["status"], "error");
  EXPECT_EQ(cases[1]["message"].get<std::string>().rfind("process 1 of 2: ", 0), 0u)
      << cases[1]["message"];
  EXPECT_NE(cases[1]["message"].get<std::string>().find("must match"), std::string::npos)
      << cases[1]["message"];
  EXPECT_EQ(cases[2]["status"], "ok");
  EXPECT_EQ(cases[2]["estimate"]["repetitions"], 2);
}

TEST_F(Cli, AProcessKilledMidRunCostsOnlyTheCaseItHeld) {
  // The second of two processes is killed (as the OOM killer would) while it measures: the case
  // it held is an error naming SIGKILL, the phase and the repetition; a fresh process goes on, so
  // every other case keeps all its repetitions.
  const std::string out = m_dir.file("child-killed.json");
  const std::string err = m_dir.file("child-killed.err");
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string config = k_data + "/tiny.csv";
    ::freopen(err.c_str(), "w", stderr);
    ::execl(OPBENCH_BINARY, OPBENCH_BINARY, "run", "--config", config.c_str(), "--threads", "1",
            "--runs", "3", "--min-time", "0.2", "--max-time", "0.2", "--dtype", "float32,float64",
            "--repetitions", "4", "--processes", "2", "--output", out.c_str(),
            static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  // The parent's only child once the second process has started, and the hold file its command
  // line names (none yet between its fork and its exec).
  auto child_of = [&]() -> pid_t {
    std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    pid_t child = 0;
    in >> child;
    return child;
  };
  auto hold_file_of = [](pid_t child) {
    std::ifstream in("/proc/" + std::to_string(child) + "/cmdline");
    std::string arg;
    bool next = false;
    while (std::getline(in, arg, '\0')) {
      if (next)
        return arg;
      next = arg == "--hold-file";
    }
    return std::string();
  };
  // Killed while it times a case, as its hold file says. A fixed sleep would, on a loaded
  // machine, kill it while it still loads LibTorch and holds no case.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  pid_t second = 0;
  bool timing = false;
  while (!timing && std::chrono::steady_clock::now() < deadline) {
    if (testing::read_text(err).find("process 2 of 2") != std::string::npos &&
        (second = child_of()) > 0) {
      const std::string hold = hold_file_of(second);
      const std::optional<measure::Held> held =
          hold.empty() ? std::nullopt : measure::read_hold_file(hold);
      timing = held && held->phase == measure::Phase::timed;
    }
    if (!timing)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(timing) << testing::read_text(err);
  ::kill(second, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << testing::read_text(err);
  EXPECT_EQ(WEXITSTATUS(status), 1) << testing::read_text(err);
  const std::string said = testing::read_text(err);
  EXPECT_NE(said.find("process 2 of 2: "), std::string::npos) << said;
  EXPECT_NE(said.find(": SIGKILL in "), std::string::npos) << said;
  EXPECT_NE(said.find("a fresh process goes on with the other cases"), std::string::npos) << said;
  const Json json = read_json(out);
  ASSERT_EQ(json["cases"].size(), 6u);
  int killed = 0;
  for (const auto& c : json["cases"]) {
    if (c["status"] == "error") {
      ++killed;
      const std::string message = c["message"];
      EXPECT_EQ(message.rfind("SIGKILL in ", 0), 0u) << message;
      EXPECT_NE(message.find("of 4 (process 2 of 2)"), std::string::npos) << message;
      EXPECT_GE(c["estimate"]["repetitions"].get<int>(), 2) << message; // kept, not judged
      continue;
    }
    ASSERT_EQ(c["status"], "ok") << c.dump();
    EXPECT_EQ(c["estimate"]["repetitions"].get<int>(), 4) << c["case_id"];
    EXPECT_EQ(c["message"], "") << c["case_id"];
  }
  EXPECT_EQ(killed, 1);
}

// The default host allocator: the measuring processes run on jemalloc (they check it serves their
// malloc before they measure), and the results say so; a preload that is no jemalloc is refused
// by the process that was to measure on it, which measures nothing.
TEST_F(Cli, TheMeasuringProcessesRunOnJemallocAndRefuseAnotherPreload) {
  const std::string config = " --config " + k_data + "/tiny.csv --ops add" + k_quick_stopping;
  const std::string out = m_dir.file("jemalloc.json");
  const auto r = opbench("run" + config + " --processes 2 --output " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string allocator = read_json(out)["context"]["host_allocator"];
  // Where opbench finds none (the machine lacks Debian's libjemalloc2 at any of the paths it
  // looks in), the run says so and measures on glibc: nothing here to test.
  if (allocator.find("; no jemalloc found") != std::string::npos)
    GTEST_SKIP() << allocator << " (scripts/setup.sh installs Debian's libjemalloc2)";
  EXPECT_EQ(allocator.rfind("jemalloc /", 0), 0u) << allocator;
  const std::string jemalloc = allocator.substr(9, allocator.find(' ', 9) - 9);
  EXPECT_TRUE(core::path_exists(jemalloc)) << allocator;
  EXPECT_NE(allocator.find(" preloaded into the measuring processes, "
                           "MALLOC_CONF=dirty_decay_ms:-1,"),
            std::string::npos)
      << allocator;

  const std::string refused = m_dir.file("refused.json");
  const auto no = opbench("run" + config + " --processes 2 --output " + refused,
                          "OPBENCH_JEMALLOC=" + std::string(OPBENCH_BINARY));
  EXPECT_NE(no.code, 0) << no.err;
  EXPECT_NE(no.err.find("but its malloc is not jemalloc's"), std::string::npos) << no.err;
  if (core::path_exists(refused)) {
    for (const auto& c : read_json(refused)["cases"])
      EXPECT_NE(c["status"], "ok") << c.dump();
  }
}

} // namespace
} // namespace opbench
