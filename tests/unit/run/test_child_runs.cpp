// Programs started beside each other (run/child_runs.hpp's run_programs): at once, each on the
// CPUs it was given, and one that cannot be put there never starts its work.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <vector>

#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/run/child_runs.hpp"
#include "temp_dir.hpp"

namespace opbench::run {
namespace {

// A shell that writes the CPUs it may use (the kernel's view) to stdout, then sleeps.
Program cpus_then_sleep(const std::string& out, std::vector<int> cpus) {
  return {"/bin/sh",
          {"sh", "-c", "grep Cpus_allowed_list /proc/self/status; sleep 0.6"},
          out,
          "",
          std::move(cpus)};
}

TEST(RunPrograms, TwoRunAtOnceEachOnItsOwnCpu) {
  const std::vector<int> cpus = allowed_cpus();
  if (cpus.size() < 2)
    GTEST_SKIP() << "this process may use " << cpus.size() << " CPU(s); the test needs 2";
  testing::TempDir dir;
  const auto began = std::chrono::steady_clock::now();
  const auto exits = run_programs({cpus_then_sleep(dir.file("a.txt"), {cpus[0]}),
                                   cpus_then_sleep(dir.file("b.txt"), {cpus[1]})});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  ASSERT_EQ(exits.size(), 2u);
  for (const auto& exit : exits) {
    EXPECT_TRUE(exit.started);
    EXPECT_TRUE(WIFEXITED(exit.status) && WEXITSTATUS(exit.status) == 0) << describe(exit);
  }
  EXPECT_LT(seconds, 1.1); // 0.6 s each, at the same time
  EXPECT_GE(seconds, 0.6);
  EXPECT_EQ(core::trim(core::read_file(dir.file("a.txt"))),
            "Cpus_allowed_list:\t" + std::to_string(cpus[0]));
  EXPECT_EQ(core::trim(core::read_file(dir.file("b.txt"))),
            "Cpus_allowed_list:\t" + std::to_string(cpus[1]));
}

TEST(RunPrograms, AProgramThatCannotHaveItsCpusNeverStarts) {
  testing::TempDir dir;
  // CPU 1023: none this machine has (sched_setaffinity refuses a set of none it has).
  const auto exits = run_programs({cpus_then_sleep(dir.file("a.txt"), {1023})});
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(describe(exits[0]), "exit 126");
  EXPECT_FALSE(core::path_exists(dir.file("a.txt"))); // it stopped before its stdout was opened
}

TEST(RunPrograms, UnpinnedProgramsKeepThisProcesssCpus) {
  testing::TempDir dir;
  const auto exits = run_programs({cpus_then_sleep(dir.file("a.txt"), {})});
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(describe(exits[0]), "exit 0");
  EXPECT_NE(core::read_file(dir.file("a.txt")).find("Cpus_allowed_list"), std::string::npos);
}

} // namespace
} // namespace opbench::run
