// Programs started beside each other (run/child_runs.hpp's run_programs): at once, each on the
// CPUs it was given, and one that cannot be put there never starts its work.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <string>
#include <vector>

#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/run/child_runs.hpp"
#include "temp_dir.hpp"

namespace opbench::run {
namespace {

// A shell that writes the CPUs it may use (the kernel's view) to stdout, marks that it started
// (`mine`), and exits 0 only if `other` started while it waited for it (10 s at most): two of them
// both exit 0 only when they ran at the same time.
Program cpus_then_wait(const std::string& out, std::vector<int> cpus, const std::string& mine,
                       const std::string& other) {
  return {"/bin/sh",
          {"sh", "-c",
           "grep Cpus_allowed_list /proc/self/status; touch '" + mine + "'; i=0; while [ ! -e '" +
               other + "' ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done; [ -e '" + other +
               "' ]"},
          out,
          "",
          std::move(cpus)};
}

TEST(RunPrograms, TwoRunAtOnceEachOnItsOwnCpu) {
  const std::vector<int> cpus = allowed_cpus();
  if (cpus.size() < 2)
    GTEST_SKIP() << "this process may use " << cpus.size() << " CPU(s); the test needs 2";
  testing::TempDir dir;
  const std::string a = dir.file("a.started"), b = dir.file("b.started");
  const auto exits = run_programs({cpus_then_wait(dir.file("a.txt"), {cpus[0]}, a, b),
                                   cpus_then_wait(dir.file("b.txt"), {cpus[1]}, b, a)});
  ASSERT_EQ(exits.size(), 2u);
  for (const auto& exit : exits) {
    EXPECT_TRUE(exit.started);
    EXPECT_EQ(describe(exit), "exit 0"); // each saw the other start while it ran
  }
  EXPECT_EQ(core::trim(core::read_file(dir.file("a.txt"))),
            "Cpus_allowed_list:\t" + std::to_string(cpus[0]));
  EXPECT_EQ(core::trim(core::read_file(dir.file("b.txt"))),
            "Cpus_allowed_list:\t" + std::to_string(cpus[1]));
}

TEST(RunPrograms, AProgramThatCannotHaveItsCpusNeverStarts) {
  testing::TempDir dir;
  // CPU 1023: none this machine has (sched_setaffinity refuses a set of none it has); 5000: past
  // what a CPU set holds.
  for (int cpu : {1023, 5000}) {
    const auto exits = run_programs(
        {cpus_then_wait(dir.file("a.txt"), {cpu}, dir.file("a.started"), dir.file("a.started"))});
    ASSERT_EQ(exits.size(), 1u);
    EXPECT_EQ(describe(exits[0]), "exit 126") << cpu;
  }
  EXPECT_FALSE(core::path_exists(dir.file("a.txt"))); // it stopped before its stdout was opened
}

TEST(RunPrograms, UnpinnedProgramsKeepThisProcesssCpus) {
  testing::TempDir dir;
  const auto exits = run_programs(
      {cpus_then_wait(dir.file("a.txt"), {}, dir.file("a.started"), dir.file("a.started"))});
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(describe(exits[0]), "exit 0");
  EXPECT_NE(core::read_file(dir.file("a.txt")).find("Cpus_allowed_list"), std::string::npos);
}

} // namespace
} // namespace opbench::run
