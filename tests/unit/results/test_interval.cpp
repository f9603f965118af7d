// A case's interval (results/estimate.hpp's interval_of; docs/results.md, "The interval"): what it
// is made from, why it is wide, and that the processes behind it survive every way a result
// travels (combined, set aside, written and read back).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "opbench/results/estimate.hpp"
#include "opbench/results/interval.hpp"
#include "opbench/results/store.hpp"
#include "sample_result.hpp"

namespace opbench::results {
namespace {

using testing_support::make_result;

TEST(Interval, IsTheRunAllowanceWhenTheProcessesAgree) {
  const std::vector<double> medians{1.00, 1.01, 1.002, 1.03, 1.004, 1.05};
  const Interval i = interval_of(1.0, medians, {0, 0, 1, 1, 2, 2});
  EXPECT_DOUBLE_EQ(i.half_width, k_run_allowance);
  EXPECT_DOUBLE_EQ(i.low, 1.0 - k_run_allowance);
  EXPECT_DOUBLE_EQ(i.high, 1.0 + k_run_allowance);
  EXPECT_EQ(i.basis, IntervalBasis::processes);
  EXPECT_EQ(i.wide, WideReason::none);
}

TEST(Interval, GrowsWithHowFarTheNextBestProcessCameFromTheBest) {
  // The processes' fastest: 1.00, 1.04, 1.10; the next best 4% from the best.
  const Interval i = interval_of(1.0, {1.00, 1.01, 1.04, 1.05, 1.10, 1.12}, {0, 0, 1, 1, 2, 2});
  EXPECT_NEAR(i.half_width, k_spread_factor * 0.04, 1e-12);
  EXPECT_NEAR(i.high, 1.0 + k_spread_factor * 0.04, 1e-12);
  // Rising process after process.
  EXPECT_EQ(i.wide, WideReason::drifting);
  // The same values in another process order disagree with no pattern.
  EXPECT_EQ(interval_of(1.0, {1.10, 1.12, 1.00, 1.01, 1.04, 1.05}, {0, 0, 1, 1, 2, 2}).wide,
            WideReason::processes_disagree);
}

TEST(Interval, OneSlowProcessDoesNotWidenItAndAFurtherOneCanOnlyNarrowIt) {
  // A process caught in a slow spell: the estimator does not take it, nor does the interval.
  const Interval slow = interval_of(1.0, {1.0, 1.0, 1.01, 1.0, 2.0, 2.1}, {0, 0, 1, 1, 2, 2});
  EXPECT_DOUBLE_EQ(slow.half_width, k_run_allowance);
  // Two processes 6% apart; a third that agrees with the best one narrows it.
  const Interval two = interval_of(1.0, {1.0, 1.01, 1.06, 1.07}, {0, 0, 1, 1});
  const Interval three = interval_of(1.0, {1.0, 1.01, 1.06, 1.07, 1.005, 1.02}, {0, 0, 1, 1, 2, 2});
  EXPECT_NEAR(two.half_width, k_spread_factor * 0.06, 1e-12);
  EXPECT_DOUBLE_EQ(three.half_width, k_run_allowance);
}

TEST(Interval, TwoLevelsAreBimodal) {
  const Interval i = interval_of(1.0, {1.0, 1.01, 1.3, 1.31}, {0, 0, 1, 1});
  EXPECT_NEAR(i.half_width, k_spread_factor * 0.3, 1e-12);
  EXPECT_EQ(i.wide, WideReason::bimodal);
  // Past the unstable ratio too.
  EXPECT_EQ(interval_of(1.0, {1.0, 3.5}).wide, WideReason::bimodal);
}

TEST(Interval, WithoutProcessesItStandsOnTheRepetitionsAndSaysSo) {
  // Not known (a file from before), or all from one process: each repetition alone.
  for (const std::vector<int>& processes : {std::vector<int>{}, std::vector<int>{0, 0, 0, 0}}) {
    const Interval i = interval_of(1.0, {1.0, 1.05, 1.08, 1.1}, processes);
    EXPECT_EQ(i.basis, IntervalBasis::repetitions);
    EXPECT_NEAR(i.half_width, k_spread_factor * 0.05, 1e-12);
    EXPECT_EQ(i.wide, WideReason::repetitions_disagree);
  }
  // One repetition: no interval.
  const Interval one = interval_of(1.0, {1.0}, {0});
  EXPECT_TRUE(std::isnan(one.half_width));
  EXPECT_TRUE(std::isnan(one.low));
  EXPECT_EQ(one.wide, WideReason::none);
}

TEST(Interval, ANoisyRunGivesNoCaseANarrowerIntervalThanItsTypicalCase) {
  // The run's allowance: the median of its cases' own widths, never under k_run_allowance.
  EXPECT_DOUBLE_EQ(run_allowance({0.01, 0.05, std::nan(""), 0.06}), 0.05);
  EXPECT_DOUBLE_EQ(run_allowance({0.001, 0.01}), k_run_allowance);
  EXPECT_DOUBLE_EQ(run_allowance({}), k_run_allowance);
  // Processes that agreed by chance in a noisy run: the run's allowance, said as the reason.
  const std::vector<double> medians{1.00, 1.01, 1.002, 1.03};
  const Interval calm = interval_of(1.0, medians, {0, 0, 1, 1}, 0.06);
  EXPECT_DOUBLE_EQ(calm.half_width, 0.06);
  EXPECT_DOUBLE_EQ(calm.allowance, 0.06);
  EXPECT_EQ(calm.wide, WideReason::noisy_run);
  // Its own disagreement past the run's: its own reason.
  const Interval own = interval_of(1.0, {1.0, 1.05, 1.08, 1.09}, {0, 0, 1, 1}, 0.06);
  EXPECT_NEAR(own.half_width, k_spread_factor * 0.08, 1e-12);
  EXPECT_EQ(own.wide, WideReason::processes_disagree);
  // Never under k_run_allowance, whatever it is given.
  EXPECT_DOUBLE_EQ(interval_of(1.0, medians, {0, 0, 1, 1}, 0.001).half_width, k_run_allowance);
  EXPECT_DOUBLE_EQ(allowance_of(Interval{}), k_run_allowance);
}

TEST(Interval, TheProcessesTravelWithTheirMediansEverywhere) {
  CaseResult first = make_result("a", {1.0, 1.01});
  first.timing.repetition_medians = {1.0, 1.01};
  first.timing.repetition_processes = {0, 0};
  CaseResult second = make_result("a", {1.05, 1.03});
  second.timing.repetition_medians = {1.05, 1.03};
  second.timing.repetition_processes = {1, 1};
  CaseResult r = combine_repetitions({first, second});
  EXPECT_EQ(r.timing.repetition_processes, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(r.estimate.interval.basis, IntervalBasis::processes);
  EXPECT_NEAR(r.estimate.interval.half_width, k_spread_factor * 0.03, 1e-12);
  // A part that does not say its process: none is known.
  CaseResult unknown = second;
  unknown.timing.repetition_processes.clear();
  EXPECT_TRUE(combine_repetitions({first, unknown}).timing.repetition_processes.empty());

  // Written and read back: the interval is made again from the medians and their processes.
  const CaseResult back = case_result_from_json(to_json(r), "r.json");
  EXPECT_EQ(back.timing.repetition_processes, r.timing.repetition_processes);
  EXPECT_DOUBLE_EQ(back.estimate.interval.half_width, r.estimate.interval.half_width);
  Json json = to_json(r);
  EXPECT_EQ(json["estimate"]["interval"]["basis"], "processes");
  EXPECT_EQ(json["estimate"]["interval"]["wide"], "processes disagree");
  json["timing"]["repetition_processes"] = {0, 1};
  try {
    (void)case_result_from_json(json, "r.json");
    FAIL() << "a process list of another length was read";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json: timing.repetition_processes: expected one"),
              std::string::npos)
        << e.what();
  }
  json["timing"]["repetition_processes"] = {0, 0, -1, 1};
  EXPECT_THROW((void)case_result_from_json(json, "r.json"), ResultsError);

  // A noisy run's allowance is written and read back, and kept when a repetition is set aside.
  r.estimate = estimate_of(r.timing.repetition_medians, "fastest-third",
                           r.timing.repetition_processes, 0.08);
  EXPECT_DOUBLE_EQ(case_result_from_json(to_json(r), "r.json").estimate.interval.half_width, 0.08);
  Json bad = to_json(r);
  bad["estimate"]["interval"]["allowance"] = "wide";
  EXPECT_THROW((void)case_result_from_json(bad, "r.json"), ResultsError);

  // A repetition set aside takes its process with it.
  r.timing.repetition_bandwidth = {{33e9, 33e9}, {55e9, 55e9}, {33e9, 33e9}, {33e9, 33e9}};
  set_aside_unusual_bandwidth(r, 33e9, 0.2);
  EXPECT_EQ(r.timing.repetition_medians, (std::vector<double>{1.0, 1.05, 1.03}));
  EXPECT_EQ(r.timing.repetition_processes, (std::vector<int>{0, 1, 1}));
  EXPECT_DOUBLE_EQ(r.estimate.interval.allowance, 0.08);
}

TEST(IntervalTally, CountsTheCasesByProcessesAndTheWideOnesByReason) {
  IntervalTally tally;
  CaseResult tight = make_result("a", {1.0, 1.0});
  tight.timing.repetition_medians = {1.0, 1.001, 1.0, 1.002};
  tight.timing.repetition_processes = {0, 0, 1, 1};
  tight.estimate = estimate_of(tight.timing.repetition_medians, "fastest-third",
                               tight.timing.repetition_processes);
  CaseResult wide = tight;
  wide.timing.repetition_medians = {1.0, 1.3, 1.02, 1.31, 1.01, 1.32};
  wide.timing.repetition_processes = {0, 0, 1, 1, 2, 2};
  wide.estimate = estimate_of(wide.timing.repetition_medians, "fastest-third",
                              wide.timing.repetition_processes);
  CaseResult failed = tight;
  failed.status = Status::error;
  for (const CaseResult* r : {&tight, &wide, &failed})
    tally.add(*r, 0.03);
  const Json json = tally.to_json(0.03);
  EXPECT_EQ(json["cases"], 2);
  EXPECT_EQ(json["by_processes"]["2"], 1);
  EXPECT_EQ(json["by_processes"]["3"], 1);
  EXPECT_EQ(json["not_reached"], 0); // 1.5 x 1% is within 3%
  EXPECT_EQ(tally.describe(0.03), "interval: 2 of 2 cases within +-3.0% (1 in 2 process(es), 1 "
                                  "in 3 process(es)); median +-2.0%");
  wide.timing.repetition_medians = {1.0, 1.3, 1.1, 1.31, 1.2, 1.32};
  wide.estimate = estimate_of(wide.timing.repetition_medians, "fastest-third",
                              wide.timing.repetition_processes);
  tally.add(wide, 0.03);
  EXPECT_EQ(tally.to_json(0.03)["wide_by_reason"]["drifting"], 1);
  EXPECT_EQ(tally.to_json(0.03)["not_reached"], 1);
}

} // namespace
} // namespace opbench::results
