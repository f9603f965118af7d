#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>

#include "opbench/exec/schedule.hpp"

namespace opbench::exec {
namespace {

std::vector<Job> drain(Schedule& s) {
  std::vector<Job> out;
  Job job;
  while (s.next(job)) out.push_back(job);
  return out;
}

TEST(Schedule, CaseByCaseOrInterleavedEveryPairOnce) {
  Schedule plain(3, 2, false, 0);
  const auto in_order = drain(plain);
  ASSERT_EQ(in_order.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(in_order[i].case_index, i / 2);
    EXPECT_EQ(in_order[i].repetition, static_cast<int>(i % 2));
  }
  Schedule shuffled(50, 5, true, 7);
  const auto jobs = drain(shuffled);
  std::set<std::pair<std::size_t, int>> seen;
  bool moved = false;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    seen.emplace(jobs[i].case_index, jobs[i].repetition);
    moved = moved || jobs[i].case_index != i / 5;
  }
  EXPECT_EQ(seen.size(), 250u);
  EXPECT_TRUE(moved);
  // The same seed gives the same order everywhere.
  Schedule again(50, 5, true, 7);
  const auto second = drain(again);
  for (std::size_t i = 0; i < jobs.size(); ++i) EXPECT_EQ(second[i].case_index, jobs[i].case_index);
}

TEST(Schedule, RetriesComeLaterWithinTheirLimits) {
  // 4 jobs, 2 retries per job, budget 50% of jobs = 2 retries in all.
  Schedule s(2, 2, false, 0, 2, 0.5);
  Job job;
  ASSERT_TRUE(s.next(job));
  EXPECT_TRUE(s.retry(job));  // case by case: to the end
  auto rest = drain(s);
  ASSERT_EQ(rest.size(), 4u);
  EXPECT_EQ(rest.back().case_index, 0u);
  EXPECT_EQ(rest.back().repetition, 0);
  EXPECT_EQ(rest.back().attempt, 1);
  EXPECT_TRUE(s.retry(rest.back()));
  EXPECT_FALSE(s.retry(rest.back()));  // the run's budget (2) is spent
  EXPECT_EQ(s.retries(), 2u);
  // Per job: attempt 2 is the last one allowed with max_retries 2.
  Schedule t(10, 1, true, 3, 2, 1.0);
  ASSERT_TRUE(t.next(job));
  job.attempt = 2;
  EXPECT_FALSE(t.retry(job));
}

TEST(Schedule, RepetitionsSplitOverProcessesTheFirstTakingTheRest) {
  EXPECT_EQ(split_repetitions(6, 2), (std::vector<int>{3, 3}));
  EXPECT_EQ(split_repetitions(7, 2), (std::vector<int>{4, 3}));
  EXPECT_EQ(split_repetitions(5, 3), (std::vector<int>{2, 2, 1}));
  EXPECT_EQ(split_repetitions(2, 5), (std::vector<int>{1, 1}));  // never a process with nothing to do
  EXPECT_EQ(split_repetitions(4, 1), (std::vector<int>{4}));
}

TEST(Schedule, DroppedCaseLeavesNoJob) {
  Schedule s(3, 3, true, 1);
  s.drop_case(1);
  for (const Job& job : drain(s)) EXPECT_NE(job.case_index, 1u);
}

TEST(SpeedGate, SlowdownAgainstTheFastestCanaryPerThreadCount) {
  SpeedGate gate(0.10);
  EXPECT_DOUBLE_EQ(gate.slowdown(1, 100e-6), 0.0);  // the first is the fastest so far
  EXPECT_NEAR(gate.slowdown(1, 105e-6), 0.05, 1e-12);
  EXPECT_FALSE(gate.disturbed(0.05));
  EXPECT_NEAR(gate.slowdown(1, 130e-6), 0.30, 1e-12);
  EXPECT_TRUE(gate.disturbed(0.30));
  EXPECT_DOUBLE_EQ(gate.slowdown(2, 200e-6), 0.0);  // another thread count, its own reference
  EXPECT_DOUBLE_EQ(gate.slowdown(1, 90e-6), 0.0);   // a new fastest
  EXPECT_DOUBLE_EQ(gate.fastest().at(1), 90e-6);
  EXPECT_DOUBLE_EQ(gate.slowdown(1, 0.0), 0.0);     // no canary taken (a CUDA case)
}

}  // namespace
}  // namespace opbench::exec
