// How a case's number is made (results/estimate.hpp): combining repetitions and processes, the
// estimators and the interval, the repetitions set aside for an unusual memory bandwidth, noise.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "opbench/results/estimate.hpp"
#include "opbench/results/store.hpp"
#include "sample_result.hpp"
#include "temp_dir.hpp"

namespace opbench::results {
namespace {

using testing::TempDir;
using testing_support::make_result;

CaseResult memory_bound_case() {
  CaseResult r = make_result("a", {1.0, 1.1, 0.6, 1.05, 0.55, 1.2});
  r.timing.repetition_medians = {1.0, 1.1, 0.6, 1.05, 0.55, 1.2};
  r.timing.repetition_bandwidth = {{33e9, 34e9}, {32e9, 33e9}, {55e9, 54e9},
                                   {33e9, 31e9}, {34e9, 56e9}, {35e9, 33e9}};
  r.estimate = estimate_of(r.timing.repetition_medians, "min");
  return r;
}

TEST(ResultSet, RepetitionsAtAnUnusualMemoryBandwidthAreSetAsideNotLost) {
  CaseResult r = memory_bound_case();
  EXPECT_DOUBLE_EQ(r.estimate.time, 0.55);
  const SetAsideOutcome did = set_aside_unusual_bandwidth(r, 33e9, 0.2);
  EXPECT_EQ(did.set_aside, 2u);
  EXPECT_FALSE(did.all_unusual);
  // The third (both readings fast) and the fifth (fast after it) are set aside.
  EXPECT_EQ(r.timing.repetition_medians, (std::vector<double>{1.0, 1.1, 1.05, 1.2}));
  ASSERT_EQ(r.timing.repetition_bandwidth.size(), 4u);
  ASSERT_EQ(r.timing.set_aside.size(), 2u);
  EXPECT_DOUBLE_EQ(r.timing.set_aside[0].median, 0.6);
  EXPECT_DOUBLE_EQ(r.timing.set_aside[1].median, 0.55);
  EXPECT_DOUBLE_EQ(r.timing.set_aside[1].bandwidth[1], 56e9);
  EXPECT_DOUBLE_EQ(r.timing.usual_bandwidth, 33e9);
  EXPECT_EQ(r.estimate.estimator, "min");
  EXPECT_DOUBLE_EQ(r.estimate.time, 1.0);
  EXPECT_EQ(r.estimate.repetitions, 4u);
  EXPECT_TRUE(r.message.empty());
  // Written and read back: the set-aside repetitions stay in the file, out of the estimate.
  ResultSet set;
  set.cases.push_back(r);
  const ResultSet back = result_set_from_json(to_json(set), "mem");
  const CaseResult& b = back.cases[0];
  EXPECT_EQ(b.timing.repetition_medians, r.timing.repetition_medians);
  EXPECT_EQ(b.timing.repetition_bandwidth, r.timing.repetition_bandwidth);
  ASSERT_EQ(b.timing.set_aside.size(), 2u);
  EXPECT_DOUBLE_EQ(b.timing.set_aside[0].bandwidth[0], 55e9);
  EXPECT_DOUBLE_EQ(b.timing.usual_bandwidth, 33e9);
  EXPECT_DOUBLE_EQ(b.estimate.time, 1.0);
}

TEST(ResultSet, AMemoryBoundCaseMeasuredOnlyAtAnUnusualBandwidthKeepsEverythingAndSaysSo) {
  CaseResult r = memory_bound_case();
  const SetAsideOutcome did = set_aside_unusual_bandwidth(r, 80e9, 0.2);
  EXPECT_EQ(did.set_aside, 0u);
  EXPECT_TRUE(did.all_unusual);
  EXPECT_EQ(r.timing.repetition_medians.size(), 6u);
  EXPECT_TRUE(r.timing.set_aside.empty());
  EXPECT_DOUBLE_EQ(r.estimate.time, 0.55);
  EXPECT_EQ(r.message, "every repetition ran at an unusual memory bandwidth (31-56 GB/s against "
                       "the run's usual 80 GB/s)");
  // No usual level, or no readings: nothing changes.
  CaseResult none = memory_bound_case();
  EXPECT_FALSE(set_aside_unusual_bandwidth(none, 0.0, 0.2).all_unusual);
  EXPECT_EQ(none.timing.repetition_medians.size(), 6u);
  EXPECT_DOUBLE_EQ(none.timing.usual_bandwidth, 0.0);
  CaseResult plain = make_result("b", {1.0, 2.0});
  plain.timing.repetition_medians = {1.0, 2.0};
  set_aside_unusual_bandwidth(plain, 33e9, 0.2);
  EXPECT_EQ(plain.timing.repetition_medians.size(), 2u);
  EXPECT_DOUBLE_EQ(plain.timing.usual_bandwidth, 0.0);
}

// A stage's compile time is the one of the repetition that compiled, whichever comes first; it
// survives the result file.
TEST(ResultSet, CompileTimeIsTheCompilingRepetitions) {
  CaseResult loaded = make_result("a", {1.0});
  loaded.stage_info = StageInfo{};
  loaded.stage_info->tolerance = "exact";
  loaded.stage_info->compile_time = 12.0;
  loaded.stage_info->compile_cached = true;
  CaseResult compiled = make_result("a", {1.1});
  compiled.stage_info = StageInfo{};
  compiled.stage_info->compile_time = 14.0;
  const CaseResult both = combine_repetitions({loaded, compiled});
  ASSERT_TRUE(both.stage_info.has_value());
  EXPECT_EQ(both.stage_info->tolerance, "exact");
  EXPECT_DOUBLE_EQ(*both.stage_info->compile_time, 14.0);
  EXPECT_FALSE(both.stage_info->compile_cached);
  ResultSet set;
  set.cases.push_back(loaded);
  const ResultSet again = result_set_from_json(to_json(set), "compile.json");
  EXPECT_DOUBLE_EQ(*again.cases[0].stage_info->compile_time, 12.0);
  EXPECT_TRUE(again.cases[0].stage_info->compile_cached);
}

// A later repetition that fails is the case's result as it came (the loop that measured it named
// it among the run's repetitions); one that finds the case must be skipped or that its compiler
// fails (a stage checked against eager in the case's first repetition, measured after an unchecked
// one) gives only the reason.
TEST(ResultSet, AFailedRepetitionNamesItselfASkipGivesItsReasonAlone) {
  const CaseResult ok = make_result("a", {1.0});
  CaseResult failed = make_result("a", {1.0});
  failed.status = Status::error;
  failed.message = "out of memory";
  EXPECT_EQ(combine_repetitions({ok, failed}).message, "out of memory");
  EXPECT_EQ(combine_repetitions({ok, failed}).status, Status::error);
  CaseResult skipped = failed;
  skipped.status = Status::skipped;
  skipped.message = "the package does not take these sizes";
  const CaseResult combined = combine_repetitions({ok, skipped});
  EXPECT_EQ(combined.status, Status::skipped);
  EXPECT_EQ(combined.message, "the package does not take these sizes");
  CaseResult compiler = failed;
  compiler.status = Status::compiler_failed;
  compiler.message = "partition compile failed";
  EXPECT_EQ(combine_repetitions({ok, compiler}).message, "partition compile failed");
}

TEST(ResultSet, BandwidthReadingsStayPairedWithTheirMedians) {
  CaseResult first = make_result("a", {1.0, 1.2});
  first.timing.repetition_medians = {1.0, 1.2};
  first.timing.repetition_bandwidth = {{30e9, 31e9}, {32e9, 33e9}};
  CaseResult second = make_result("a", {0.9});
  second.timing.repetition_medians = {0.9};
  second.timing.repetition_bandwidth = {{50e9, 51e9}};
  const CaseResult both = combine_repetitions({first, second});
  ASSERT_EQ(both.timing.repetition_bandwidth.size(), 3u);
  EXPECT_DOUBLE_EQ(both.timing.repetition_bandwidth[2][0], 50e9);
  // A part without readings: none is kept rather than pairs that no longer match.
  CaseResult third = make_result("a", {1.1});
  third.timing.repetition_medians = {1.1};
  const CaseResult mixed = combine_repetitions({first, third});
  EXPECT_TRUE(mixed.timing.repetition_bandwidth.empty());
  // A file whose readings do not match its medians is refused, naming the field.
  ResultSet set;
  set.cases.push_back(first);
  Json json = to_json(set);
  json["cases"][0]["timing"]["repetition_bandwidth"].push_back({1e9, 1e9});
  try {
    (void)result_set_from_json(json, "bad.json");
    FAIL() << "expected a ResultsError";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("timing.repetition_bandwidth has 3 entries"),
              std::string::npos)
        << e.what();
  }
  json["cases"][0]["timing"]["repetition_bandwidth"] =
      Json::array({Json::array({1e9}), Json::array({1e9, 2e9})});
  EXPECT_THROW((void)result_set_from_json(json, "bad.json"), ResultsError);
}

TEST(ResultSet, PartsMeasuredInSeveralProcessesPoolTheirRepetitionMedians) {
  // run --processes: each process's result of a case has several repetitions already.
  CaseResult first = make_result("a", {1.0, 1.2, 1.1});
  first.timing.repetition_medians = {1.0, 1.2, 1.1};
  first.timing.noise = 0.01;
  first.timing.target_noise = 0.02;
  first.timing.total_time = 3;
  CaseResult second = make_result("a", {0.9, 1.3});
  second.timing.repetition_medians = {0.9, 1.3};
  second.timing.noise = 0.05;
  second.timing.total_time = 2;
  second.memory.reset();
  const CaseResult r = combine_repetitions({first, second});
  EXPECT_EQ(r.timing.repetition_medians, (std::vector<double>{1.0, 1.2, 1.1, 0.9, 1.3}));
  EXPECT_EQ(r.estimate.repetitions, 5u);
  EXPECT_DOUBLE_EQ(r.estimate.time, 0.9); // min over both processes
  EXPECT_DOUBLE_EQ(r.estimate.median, 1.1);
  EXPECT_DOUBLE_EQ(r.timing.total_time, 5.0);
  EXPECT_EQ(r.samples.size(), 5u);
  // The typical repetition's noise: three repetitions at 1%, two at 5%.
  EXPECT_DOUBLE_EQ(r.timing.noise, 0.01);
  ASSERT_TRUE(r.memory.has_value());
  // Journalled as a part of a run that was then killed: its repetitions, not one.
  TempDir dir;
  ResultWriter writer(dir.file("run.json"), {{"host", "h"}});
  writer.append_repetition(first, 0, 6);
  const ResultSet partial = load_results(writer.journal_path());
  ASSERT_EQ(partial.cases.size(), 1u);
  EXPECT_EQ(partial.cases[0].message, "3 of 6 repetitions: the run ended before the others");
  EXPECT_EQ(partial.cases[0].timing.repetition_medians, first.timing.repetition_medians);
}

TEST(ResultSet, NoiseIsTheTypicalRepetitionsNotThePooledSamples) {
  // Three quiet repetitions (cv 1% each, target 2%) whose medians differ by 18%: the pooled
  // samples' cv is about 7%, but each repetition reached its target, so the case did.
  std::vector<CaseResult> reps;
  const double noise[] = {0.01, 0.015, 0.05};
  for (int i = 0; i < 3; ++i) {
    const double m = 1.0 + 0.09 * i;
    CaseResult r = make_result("a", {m * 0.99, m, m * 1.01});
    r.timing.target_noise = 0.02;
    r.timing.noise = noise[i];
    r.timing.noise_reached = noise[i] <= 0.02;
    reps.push_back(r);
  }
  CaseResult r = combine_repetitions(reps);
  EXPECT_GT(r.summary.cv, 0.06);
  EXPECT_DOUBLE_EQ(r.timing.noise, 0.015);
  EXPECT_TRUE(r.timing.noise_reached);
  // Two of three repetitions miss the target: the typical one does, and so does the case.
  reps[1].timing.noise = 0.03;
  r = combine_repetitions(reps);
  EXPECT_DOUBLE_EQ(r.timing.noise, 0.03);
  EXPECT_FALSE(r.timing.noise_reached);
  // Missing the stopping target is not noisy; the repetitions' medians (1.0, 1.09 and 1.18: the
  // fastest and the next 9% apart) are not past 10% either.
  EXPECT_FALSE(noisy(r));
  EXPECT_NEAR(uncertainty(r), 0.09, 1e-12);
  // Blocks noisier than 10% in every repetition: still not noisy while the repetitions the number
  // is made from agree; the block cv is a detail.
  reps[1].timing.noise = 0.12;
  reps[2].timing.noise = 0.15;
  reps[0].timing.noise = 0.15;
  EXPECT_FALSE(noisy(combine_repetitions(reps)));
  // One repetition has no uncertainty: its block cv decides (or the target, when looser).
  r = combine_repetitions({reps[2]});
  EXPECT_TRUE(std::isnan(uncertainty(r)));
  EXPECT_TRUE(noisy(r));
  reps[2].timing.target_noise = 0.2;
  EXPECT_FALSE(noisy(combine_repetitions({reps[2]})));
  r.status = results::Status::error;
  EXPECT_FALSE(noisy(r));
}

TEST(ResultSet, ANumberIsNoisyWhenTheRepetitionsItIsMadeFromDisagree) {
  // Six repetition medians: fastest-third takes the two fastest, 5% apart: not noisy, however far
  // the slow ones lie (interference only adds time; they are not in the number).
  std::vector<CaseResult> reps;
  for (double m : {1.05, 2.0, 1.0, 1.3, 1.6, 1.2})
    reps.push_back(make_result("a", {m}));
  CaseResult r = combine_repetitions(reps, "fastest-third");
  EXPECT_NEAR(uncertainty(r), 0.05, 1e-12);
  EXPECT_FALSE(noisy(r));
  // The second fastest 15% above the fastest: the number is the mean of two values 15% apart.
  reps[0] = make_result("a", {1.15});
  r = combine_repetitions(reps, "fastest-third");
  EXPECT_NEAR(uncertainty(r), 0.15, 1e-12);
  EXPECT_TRUE(noisy(r));
  EXPECT_NEAR(uncertainty(combine_repetitions(reps, "min")), 0.15, 1e-12);
  // The median: half its interval over it.
  r = combine_repetitions(reps, "median");
  EXPECT_NEAR(uncertainty(r), (r.estimate.high - r.estimate.low) / 2 / r.estimate.median, 1e-12);
  EXPECT_TRUE(noisy(r));
}

TEST(ResultSet, EstimateIsTheMedianOfRepetitionMediansWithItsInterval) {
  std::vector<CaseResult> reps;
  for (double m : {1.0, 1.2, 0.9, 1.1, 5.0})
    reps.push_back(make_result("a", {m}));
  const CaseResult r = combine_repetitions(reps);
  EXPECT_EQ(r.estimate.repetitions, 5u);
  EXPECT_DOUBLE_EQ(r.estimate.median, 1.1); // the 5.0 repetition moves it one rank only
  EXPECT_DOUBLE_EQ(r.estimate.low, 0.9);
  EXPECT_DOUBLE_EQ(r.estimate.high, 5.0);
  EXPECT_DOUBLE_EQ(r.estimate.coverage, 0.9375);
  EXPECT_DOUBLE_EQ(r.estimate.spread, (5.0 - 0.9) / 1.1);
  // Written and read back: the estimate is made again from the repetition medians.
  const CaseResult back = case_result_from_json(to_json(r), "mem");
  EXPECT_DOUBLE_EQ(back.estimate.median, 1.1);
  EXPECT_DOUBLE_EQ(back.estimate.coverage, 0.9375);
  // A file from before estimates existed: one repetition, the samples' median.
  Json old = to_json(make_result("c", {1.0, 3.0, 2.0}));
  old.erase("estimate");
  old["timing"].erase("repetition_medians");
  const CaseResult legacy = case_result_from_json(old, "mem");
  EXPECT_EQ(legacy.estimate.repetitions, 1u);
  EXPECT_DOUBLE_EQ(legacy.estimate.median, 2.0);
  EXPECT_EQ(legacy.estimate.estimator, "median"); // files from before the choice used the median
  EXPECT_DOUBLE_EQ(legacy.estimate.time, 2.0);
}

TEST(ResultSet, RepetitionsAddUpTheirTimeSpentAndKeepTheRecordedWork) {
  // Repetition 0 recorded the ATen calls and their work; repetition 1, measured again, came
  // back first and recorded nothing (a later CPU repetition skips the recorder).
  CaseResult later = make_result("a", {2.0});
  later.timing.spent.inputs = 0.5;
  later.timing.spent.warmup = 0.25;
  CaseResult first = make_result("a", {1.0});
  first.work.flops = 8.0;
  first.work.bytes = 48.0;
  first.work.aten_calls = 1;
  first.timing.spent.inputs = 0.5;
  first.timing.spent.recording = 0.125;
  first.timing.spent.probes = 1.0;
  const CaseResult r = combine_repetitions({later, first});
  EXPECT_DOUBLE_EQ(r.timing.spent.inputs, 1.0);
  EXPECT_DOUBLE_EQ(r.timing.spent.warmup, 0.25);
  EXPECT_DOUBLE_EQ(r.timing.spent.recording, 0.125);
  EXPECT_DOUBLE_EQ(r.timing.spent.probes, 1.0);
  EXPECT_DOUBLE_EQ(r.timing.spent.total(), 2.375);
  ASSERT_TRUE(r.work.flops.has_value());
  EXPECT_DOUBLE_EQ(*r.work.flops, 8.0);
  EXPECT_EQ(r.work.aten_calls, 1);
  // Written and read back; a file from before `spent` reads as nothing spent.
  const Json json = to_json(r);
  EXPECT_DOUBLE_EQ(json["timing"]["spent"]["recording"].get<double>(), 0.125);
  EXPECT_DOUBLE_EQ(case_result_from_json(json, "mem").timing.spent.total(), 2.375);
  Json old = json;
  old["timing"].erase("spent");
  EXPECT_DOUBLE_EQ(case_result_from_json(old, "mem").timing.spent.total(), 0.0);
}

TEST(ResultSet, TheEstimatorMakesTheTimeFromTheRepetitionMedians) {
  std::vector<CaseResult> reps;
  for (double m : {1.0, 1.2, 0.9, 1.1, 5.0})
    reps.push_back(make_result("a", {m}));
  // fastest-third (the default): the mean of the fastest third, here (5 repetitions) the least
  // disturbed one; the median and its interval still reported.
  const CaseResult fastest = combine_repetitions(reps);
  EXPECT_EQ(fastest.estimate.estimator, "fastest-third");
  EXPECT_DOUBLE_EQ(fastest.estimate.time, 0.9);
  EXPECT_DOUBLE_EQ(combine_repetitions(reps, "min").estimate.time, 0.9);
  EXPECT_DOUBLE_EQ(fastest.estimate.median, 1.1);
  const CaseResult typical = combine_repetitions(reps, "median");
  EXPECT_DOUBLE_EQ(typical.estimate.time, 1.1);
  // Recorded per result and followed when read back.
  const Json json = to_json(typical);
  EXPECT_EQ(json["estimate"]["estimator"], "median");
  EXPECT_DOUBLE_EQ(case_result_from_json(json, "mem").estimate.time, 1.1);
  EXPECT_DOUBLE_EQ(case_result_from_json(to_json(fastest), "mem").estimate.time, 0.9);
  // NaN repetition medians are no time; none at all is NaN; unknown names are errors.
  EXPECT_DOUBLE_EQ(estimate_with("min", {std::nan(""), 2.0, 3.0}), 2.0);
  EXPECT_TRUE(std::isnan(estimate_with("min", {})));
  // The fastest third: 2 of 6 (the default run), 4 of 12, never none; NaN is no time.
  EXPECT_DOUBLE_EQ(estimate_with("fastest-third", {5.0, 1.0, 4.0, 2.0, 6.0, 3.0}), 1.5);
  EXPECT_DOUBLE_EQ(estimate_with("fastest-third", {9, 1, 8, 2, 7, 3, 6, 4, 5, 10, 11, 12}), 2.5);
  EXPECT_DOUBLE_EQ(estimate_with("fastest-third", {3.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(estimate_with("fastest-third", {std::nan(""), 4.0, 1.0, 2.0, 6.0, 3.0, 5.0}),
                   1.5);
  EXPECT_TRUE(std::isnan(estimate_with("fastest-third", {std::nan("")})));
  EXPECT_THROW(estimate_with("mean", {1.0}), Error);
  Json bad = json;
  bad["estimate"]["estimator"] = "mean";
  try {
    case_result_from_json(bad, "run.json: case 3");
    FAIL() << "an unknown estimator was accepted";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "run.json: case 3: estimate.estimator 'mean' is not one of min, median"),
              std::string::npos)
        << e.what();
  }
}

TEST(Unstable, RepetitionMediansOverThreeTimesApartAndTheSlowOnesAreMeasuredAgain) {
  EXPECT_FALSE(is_unstable({}));
  EXPECT_FALSE(is_unstable({5e-6}));
  EXPECT_FALSE(is_unstable({1e-6, 2.9e-6, 1.2e-6}));
  EXPECT_FALSE(is_unstable({1e-6, 3e-6})); // exactly three times: not over
  EXPECT_TRUE(is_unstable({1e-6, 3.1e-6}));
  EXPECT_FALSE(is_unstable({1e-6, std::nan(""), 1.5e-6}));
  // Issue #46's case: 8, 2.65, 1.87, 1.25, 1.17, 8 ms; the middle of 1.17 and 8 is 3.06 ms:
  // the two 8 ms are measured again.
  const std::vector<double> add = {8e-3, 2.65e-3, 1.87e-3, 1.25e-3, 1.17e-3, 8e-3};
  EXPECT_TRUE(is_unstable(add));
  EXPECT_EQ(disagreeing_repetitions(add), (std::vector<std::size_t>{0, 5}));
  // A rare fast level among slow repetitions: the slow ones are measured again, the fast one is
  // kept (interference never makes a repetition faster).
  EXPECT_EQ(disagreeing_repetitions({4e-6, 4.1e-6, 1e-6, 4.2e-6}),
            (std::vector<std::size_t>{0, 1, 3}));
  EXPECT_EQ(disagreeing_repetitions({1e-6, 4e-6}), (std::vector<std::size_t>{1}));
  EXPECT_TRUE(disagreeing_repetitions({1e-6, 1.5e-6}).empty());
  EXPECT_TRUE(estimate_of(add).unstable);
  EXPECT_FALSE(estimate_of({1e-6, 1.1e-6}).unstable);
}

} // namespace
} // namespace opbench::results
