#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>

#include "opbench/results/estimate.hpp"
#include "opbench/run/schedule.hpp"

namespace opbench::run {
namespace {

std::vector<Job> drain(Schedule& s) {
  std::vector<Job> out;
  Job job;
  while (s.next(job))
    out.push_back(job);
  return out;
}

TEST(Schedule, CaseByCaseOrInterleavedEveryPairOnce) {
  Schedule plain(3, 2, false, 0, 2);
  const auto in_order = drain(plain);
  ASSERT_EQ(in_order.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(in_order[i].case_index, i / 2);
    EXPECT_EQ(in_order[i].repetition, static_cast<int>(i % 2));
  }
  Schedule shuffled(50, 5, true, 7, 2);
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
  Schedule again(50, 5, true, 7, 2);
  const auto second = drain(again);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    EXPECT_EQ(second[i].case_index, jobs[i].case_index);
}

TEST(Schedule, RetriesComeLaterWithinTheirLimits) {
  // 4 jobs, 2 retries per job, budget 50% of jobs = 2 retries in all.
  Schedule s(2, 2, false, 0, 2, 0.5);
  Job job;
  ASSERT_TRUE(s.next(job));
  EXPECT_TRUE(s.retry(job)); // case by case: to the end
  auto rest = drain(s);
  ASSERT_EQ(rest.size(), 4u);
  EXPECT_EQ(rest.back().case_index, 0u);
  EXPECT_EQ(rest.back().repetition, 0);
  EXPECT_EQ(rest.back().attempt, 1);
  EXPECT_TRUE(s.retry(rest.back()));
  EXPECT_FALSE(s.retry(rest.back())); // the run's budget (2) is spent
  EXPECT_EQ(s.retries(), 2u);
  // Per job: attempt 2 is the last one allowed with max_retries 2.
  Schedule t(10, 1, true, 3, 2, 1.0);
  ASSERT_TRUE(t.next(job));
  job.attempt = 2;
  EXPECT_FALSE(t.retry(job));
}

TEST(Schedule, RepetitionsSplitOverProcessesTheFirstTakingTheRest) {
  EXPECT_EQ(results::split_repetitions(6, 2), (std::vector<int>{3, 3}));
  EXPECT_EQ(results::split_repetitions(7, 2), (std::vector<int>{4, 3}));
  EXPECT_EQ(results::split_repetitions(5, 3), (std::vector<int>{2, 2, 1}));
  EXPECT_EQ(results::split_repetitions(2, 5),
            (std::vector<int>{1, 1})); // never a process with nothing to do
  EXPECT_EQ(results::split_repetitions(4, 1), (std::vector<int>{4}));
}

TEST(Schedule, DroppedCaseLeavesNoJob) {
  Schedule s(3, 3, true, 1, 2);
  s.drop_case(1);
  for (const Job& job : drain(s))
    EXPECT_NE(job.case_index, 1u);
}

TEST(SpeedGate, SlowdownAgainstTheFastestCanaryPerThreadCount) {
  SpeedGate gate(0.10);
  EXPECT_DOUBLE_EQ(gate.slowdown(1, 100e-6), 0.0); // the first is the fastest so far
  EXPECT_NEAR(gate.slowdown(1, 105e-6), 0.05, 1e-12);
  EXPECT_FALSE(gate.disturbed(0.05));
  EXPECT_NEAR(gate.slowdown(1, 130e-6), 0.30, 1e-12);
  EXPECT_TRUE(gate.disturbed(0.30));
  EXPECT_DOUBLE_EQ(gate.slowdown(2, 200e-6), 0.0); // another thread count, its own reference
  EXPECT_DOUBLE_EQ(gate.slowdown(1, 90e-6), 0.0);  // a new fastest
  EXPECT_DOUBLE_EQ(gate.fastest().at(1), 90e-6);
  EXPECT_DOUBLE_EQ(gate.slowdown(1, 0.0), 0.0); // no canary taken (a CUDA case)
}

} // namespace
} // namespace opbench::run

namespace opbench::run {
namespace {

// A repetition (or a combined case) at `threads` with one memory canary pair per repetition median.
results::CaseResult with_bandwidth(int threads, std::vector<std::array<double, 2>> pairs) {
  results::CaseResult r;
  r.c.threads = threads;
  r.timing.repetition_bandwidth = std::move(pairs);
  for (std::size_t i = 0; i < r.timing.repetition_bandwidth.size(); ++i)
    r.timing.repetition_medians.push_back(1e-3 + 1e-5 * i);
  return r;
}

TEST(BandwidthReadings, JudgesARepetitionOnlyOnceTheLevelIsSet) {
  BandwidthReadings readings;
  EXPECT_TRUE(readings.empty());
  EXPECT_EQ(readings.usual(1, 0.2), 0.0);
  // Nine repetitions at 40 GB/s (18 readings): below k_min_readings, nothing is judged yet.
  for (int i = 0; i < 9; ++i)
    readings.add(with_bandwidth(1, {{40e9, 41e9}}));
  const auto fast = with_bandwidth(1, {{60e9, 40e9}});
  EXPECT_FALSE(readings.off_usual(fast, 0.2));
  readings.add(with_bandwidth(1, {{40e9, 39e9}})); // 20 readings
  EXPECT_TRUE(readings.off_usual(fast, 0.2));      // one reading of the two is 1.5x the usual
  EXPECT_FALSE(readings.off_usual(with_bandwidth(1, {{44e9, 36e9}}), 0.2));
  EXPECT_FALSE(readings.off_usual(fast, 0.0)); // tolerance 0: never
  EXPECT_FALSE(
      readings.off_usual(with_bandwidth(2, {{60e9, 60e9}}), 0.2)); // no readings at 2 threads
  EXPECT_NEAR(readings.usual(1, 0.2), 40e9, 1e9);
  // The level follows new readings: thirty at 60 GB/s make 60 the usual one.
  for (int i = 0; i < 30; ++i)
    readings.add(with_bandwidth(1, {{60e9, 60e9}}));
  EXPECT_NEAR(readings.usual(1, 0.2), 60e9, 1e-3);
  EXPECT_FALSE(readings.off_usual(with_bandwidth(1, {{60e9, 60e9}}), 0.2));
  EXPECT_TRUE(readings.off_usual(fast, 0.2)); // its 40 GB/s reading is off now
  EXPECT_TRUE(readings.off_usual(with_bandwidth(1, {{40e9, 40e9}}), 0.2));
}

TEST(BandwidthReadings, SetsAsideTheRepetitionsOffTheUsualLevelAndCountsThem) {
  BandwidthReadings readings;
  for (int i = 0; i < 20; ++i)
    readings.add(with_bandwidth(1, {{40e9, 40e9}}));
  auto mixed = with_bandwidth(1, {{40e9, 40e9}, {70e9, 41e9}, {39e9, 40e9}});
  readings.apply(mixed, 0.2);
  EXPECT_EQ(mixed.timing.repetition_medians.size(), 2u);
  ASSERT_EQ(mixed.timing.set_aside.size(), 1u);
  EXPECT_EQ(mixed.timing.set_aside[0].repetition, 1u);
  auto all_off = with_bandwidth(1, {{70e9, 70e9}, {80e9, 75e9}});
  readings.apply(all_off, 0.2);
  EXPECT_EQ(all_off.timing.repetition_medians.size(), 2u); // all off: kept, and said so
  EXPECT_NE(all_off.message.find("unusual memory bandwidth"), std::string::npos);
  auto untouched = with_bandwidth(1, {{70e9, 70e9}, {40e9, 40e9}});
  readings.apply(untouched, 0.0); // tolerance 0: nothing set aside
  EXPECT_TRUE(untouched.timing.set_aside.empty());
  EXPECT_EQ(readings.set_aside(), 1u);
  EXPECT_EQ(readings.cases_set_aside(), 1u);
  readings.measured_again = 3;
  const Json summary = readings.summary(0.2);
  EXPECT_EQ(summary["repetitions_set_aside"], 1);
  EXPECT_EQ(summary["cases_set_aside"], 1);
  EXPECT_EQ(summary["cases_at_unusual_bandwidth_only"], 1);
  EXPECT_EQ(summary["repetitions_measured_again"], 3);
  EXPECT_EQ(summary["by_threads"]["1"]["readings"], 40);
  EXPECT_NEAR(summary["by_threads"]["1"]["usual"].get<double>(), 40e9, 1e-3);
  EXPECT_EQ(summary["by_threads"]["1"]["lowest"].get<double>(), 40e9);
  // Tolerance 0 still tells the level, in the default band.
  EXPECT_NEAR(readings.summary(0.0)["by_threads"]["1"]["usual"].get<double>(), 40e9, 1e-3);
}

} // namespace
} // namespace opbench::run
