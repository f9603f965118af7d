#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "opbench/compare/compare.hpp"
#include "opbench/core/error.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/store.hpp"
#include "opbench/results/thresholds.hpp"
#include "temp_dir.hpp"

namespace opbench::compare {
namespace {

// base.json: a real run of tests/data/tiny.{csv,json}, 20 samples a case, and 5 repetition
// medians a case (the medians of samples 1-4, 5-8, ..., added when compare moved to replicates).
// slow_mul.json: the same file with every sample and repetition median of mul multiplied by 1.2.
// Both contexts say each repetition ran in a process of its own (`--isolate`: added when compare
// came to refuse repetitions of one process as replicates).
const std::string k_dir = std::string(OPBENCH_TEST_DATA) + "/compare/";
const std::string k_mul = "mul/self=4x4,other=4/float32/cpu/t1/forward";

const CaseComparison& find(const Comparison& c, const std::string& id) {
  for (const auto& item : c.cases) {
    if (item.case_id == id)
      return item;
  }
  throw std::runtime_error("no case " + id);
}

TEST(Compare, IdenticalRunsGiveNoRegression) {
  const auto base = results::load_results(k_dir + "base.json");
  const Comparison c = compare_results(base, base, {});
  ASSERT_EQ(c.cases.size(), 5u);
  EXPECT_FALSE(c.regressed());
  EXPECT_FALSE(c.nothing_judged());
  // These repetitions spread 5-96% (tiny CPU cases): where that spread cannot bound a 5% change,
  // identical files are `unknown` ("cannot tell"), never `slower` or `faster`.
  EXPECT_EQ(c.count(results::Verdict::same), 1u);
  EXPECT_EQ(c.count(results::Verdict::unknown), 4u);
  EXPECT_DOUBLE_EQ(c.geomean_ratio, 1.0);
  for (const auto& item : c.cases) {
    EXPECT_DOUBLE_EQ(item.p_value, 1.0);
    EXPECT_LE(item.ratio_low, 1.0);
    EXPECT_GE(item.ratio_high, 1.0);
    if (item.verdict == results::Verdict::unknown)
      EXPECT_EQ(item.reason.rfind("cannot tell: x1.000 (p 1), its 95% interval [", 0), 0u)
          << item.reason;
  }
}

// #46: a x1.236 change seen on 2 repetitions a side was called `same` (p 0.589), though 2 and 2
// values cannot bound any change; a tight pair of runs is `same` because its interval is narrow.
TEST(Compare, AThresholdRuleJudgesItsCaseWithItsThreshold) {
  testing::TempDir dir;
  const std::string path = dir.file("thresholds.txt");
  std::ofstream(path) << "op mul 0.25\n";
  const auto base = results::load_results(k_dir + "base.json");
  const auto slow = results::load_results(k_dir + "slow_mul.json"); // mul x1.2
  CompareOptions options;
  options.thresholds = results::read_threshold_rules(path);
  const Comparison c = compare_results(base, slow, options);
  const auto& mul = find(c, k_mul);
  EXPECT_NE(mul.verdict, results::Verdict::slower); // x1.2 is within its 25%
  EXPECT_DOUBLE_EQ(mul.threshold, 0.25);
  EXPECT_EQ(mul.threshold_rule, "op mul");
  EXPECT_FALSE(c.regressed());
  for (const auto& item : c.cases) {
    if (item.case_id != k_mul) {
      EXPECT_DOUBLE_EQ(item.threshold, 0.05);
      EXPECT_EQ(item.threshold_rule, "");
    }
  }
  std::ostringstream md;
  write_markdown(c, md);
  EXPECT_NE(md.str().find("(threshold 25%: op mul)"), std::string::npos) << md.str();
  // A rule for an operator neither file has is an error, naming the line.
  std::ofstream(path) << "op mul 0.25\nop mull 0.25\n";
  options.thresholds = results::read_threshold_rules(path);
  EXPECT_THROW(compare_results(base, slow, options), UsageError);
}

TEST(Compare, BothSidesTimedWithOneEstimator) {
  // base.json predates the estimator choice: its times are medians, and compare follows it.
  const auto base = results::load_results(k_dir + "base.json");
  const Comparison as_recorded = compare_results(base, base, {});
  EXPECT_EQ(as_recorded.estimator, "median");
  EXPECT_TRUE(as_recorded.notes.empty());
  CompareOptions fastest;
  fastest.estimator = "min";
  const Comparison c = compare_results(base, base, fastest);
  EXPECT_EQ(c.estimator, "min");
  ASSERT_EQ(c.notes.size(), 1u);
  const auto& medians = base.cases.front().timing.repetition_medians;
  EXPECT_DOUBLE_EQ(c.cases.front().base_time, *std::min_element(medians.begin(), medians.end()));
  EXPECT_LT(c.cases.front().base_time, as_recorded.cases.front().base_time);
  // A NEW run with another estimator is made again with BASE's, and the comparison says so.
  auto other = base;
  for (auto& r : other.cases)
    r.estimate = results::estimate_of(r.timing.repetition_medians, "min");
  const Comparison mixed = compare_results(base, other, {});
  EXPECT_EQ(mixed.estimator, "median");
  ASSERT_EQ(mixed.notes.size(), 1u);
  EXPECT_DOUBLE_EQ(mixed.geomean_ratio, 1.0);
  EXPECT_NE(to_json(mixed).dump().find("\"estimator\":\"median\""), std::string::npos);
}

TEST(Compare, SaysWhenTheTwoRunsSetupsDiffer) {
  const auto base = results::load_results(k_dir + "base.json");
  auto other = base;
  other.context["host_allocator"] = "glibc malloc, M_MMAP_MAX=0";
  other.context["processes"] = 3;
  other.context["libtorch_build"] = "PyTorch built with:\n  - GCC 14";
  other.context["date"] = "2030-01-01T00:00:00Z"; // differs on every night: not a setup
  const Comparison c = compare_results(base, other, {});
  ASSERT_EQ(c.notes.size(), 1u);
  const std::string& note = c.notes.front();
  EXPECT_NE(note.find("host allocator: " + base.context["host_allocator"].get<std::string>() +
                      " in BASE, glibc malloc, M_MMAP_MAX=0 in NEW"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("LibTorch build;"), std::string::npos) << note;
  EXPECT_EQ(note.find("date"), std::string::npos) << note;
  EXPECT_NE(note.find("processes a run: 5 in BASE, 3 in NEW"), std::string::npos) << note;
  // A key absent from one side (a file older than it) is nothing to compare with.
  auto older = other;
  older.context.erase("processes");
  EXPECT_EQ(compare_results(base, older, {}).notes.front().find("processes a run"),
            std::string::npos);
  std::ostringstream md;
  write_markdown(c, md);
  EXPECT_NE(md.str().find("- **note**: the two runs' setups differ"), std::string::npos);
}

// A case timed through the typed call in NEW and the boxed one in BASE moved for that too.
TEST(Compare, SaysWhichCasesWereCalledAnotherWay) {
  const auto base = results::load_results(k_dir + "base.json");
  EXPECT_TRUE(compare_results(base, base, {}).notes.empty());
  auto typed = base;
  for (auto& c : typed.cases) {
    if (c.c.case_id == k_mul)
      c.timing.call_path = c.timing.call_path == results::CallPath::typed
                               ? results::CallPath::boxed
                               : results::CallPath::typed;
  }
  CompareOptions wide; // mul's repetitions spread 8%: a 25% threshold can say `same`
  wide.threshold = 0.25;
  const Comparison c = compare_results(base, typed, wide);
  ASSERT_EQ(c.notes.size(), 1u);
  const std::string& note = c.notes.front();
  EXPECT_EQ(note.rfind("1 case(s) called another way (call path ", 0), 0u) << note;
  EXPECT_NE(note.find(k_mul), std::string::npos) << note;
  EXPECT_EQ(find(c, k_mul).verdict, results::Verdict::same); // noted, still compared
}

TEST(Compare, SaysWhenTheHostGaveTheRunsADifferentMemoryBandwidth) {
  auto base = results::load_results(k_dir + "base.json");
  auto other = base;
  auto bandwidth = [](double usual) {
    return Json{{"tolerance", 0.2}, {"by_threads", {{"2", {{"usual", usual}, {"readings", 40}}}}}};
  };
  base.summary["memory_bandwidth"] = bandwidth(33e9);
  other.summary["memory_bandwidth"] = bandwidth(38e9); // within 20%: nothing to say
  EXPECT_TRUE(compare_results(base, other, {}).notes.empty());
  other.summary["memory_bandwidth"] = bandwidth(55e9);
  const Comparison c = compare_results(base, other, {});
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(
      c.notes.front().find(
          "different usual memory bandwidth (2 thread(s): 33.0 GB/s in BASE, 55.0 GB/s in NEW"),
      std::string::npos)
      << c.notes.front();
  // Files from before the memory canary say nothing about it.
  other.summary.erase("memory_bandwidth");
  EXPECT_TRUE(compare_results(base, other, {}).notes.empty());
}

TEST(Compare, SaysWhenTheMachineRanTheTwoRunsAtDifferentSpeeds) {
  auto base = results::load_results(k_dir + "base.json");
  auto other = base;
  auto fastest = [](double seconds) {
    return Json{{"fastest_canary_by_threads", {{"1", seconds}}}};
  };
  base.summary["slow_spells"] = fastest(72.408e-6);
  other.summary["slow_spells"] = fastest(73.350e-6); // x1.013: within 3%, nothing to say
  EXPECT_TRUE(compare_results(base, other, {}).notes.empty());
  other.summary["slow_spells"] = fastest(78.527e-6); // x1.085 (bench/aa.sh, 2026-11-25 18:31)
  const Comparison c = compare_results(base, other, {});
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(
      c.notes.front().find(
          "different speeds (fastest speed canary, 1 thread(s): 72.4 us in BASE, 78.5 us in NEW, "
          "x1.085)"),
      std::string::npos)
      << c.notes.front();
  CompareOptions loose;
  loose.speed_tolerance = 0.10;
  EXPECT_TRUE(compare_results(base, other, loose).notes.empty());
  // Files from before the canary, or another thread count only: nothing to compare.
  other.summary["slow_spells"] = Json{{"fastest_canary_by_threads", {{"2", 78.527e-6}}}};
  EXPECT_TRUE(compare_results(base, other, {}).notes.empty());
  other.summary.erase("slow_spells");
  EXPECT_TRUE(compare_results(base, other, {}).notes.empty());
}

// --adjust-speed: NEW's CPU times divided by the runs' speed ratio past the tolerance, nothing
// else.
TEST(Compare, AdjustSpeedDividesTheHostsChangeOutOfCpuCasesOnly) {
  auto base = results::load_results(k_dir + "base.json");
  auto slow = results::load_results(k_dir + "slow_mul.json"); // mul x1.2, the code's change
  auto fastest = [](double seconds) {
    return Json{{"fastest_canary_by_threads", {{"1", seconds}}}};
  };
  // The host ran NEW x1.085 slower throughout: every case and the canary moved by as much.
  const double host = 78.527e-6 / 72.408e-6;
  base.summary["slow_spells"] = fastest(72.408e-6);
  slow.summary["slow_spells"] = fastest(78.527e-6);
  for (auto& r : slow.cases) {
    r.estimate.time *= host;
    for (double& m : r.timing.repetition_medians)
      m *= host;
  }
  // A GPU case's execution is not the host CPU's: left as it is (its device, both sides).
  const std::string gpu = "relu/self=64/float32/cpu/t1/forward";
  for (auto* set : {&base, &slow}) {
    for (auto& r : set->cases) {
      if (r.c.case_id == gpu)
        r.c.device = "cuda:0";
    }
  }
  const Comparison raw = compare_results(base, slow, {});
  for (const auto& item : raw.cases) { // all of it looks like the code's
    EXPECT_NEAR(item.ratio, item.case_id == k_mul ? 1.2 * host : host, 1e-9) << item.case_id;
  }
  EXPECT_NE(raw.notes.back().find("--adjust-speed divides it out"), std::string::npos)
      << raw.notes.back();
  CompareOptions adjust;
  adjust.adjust_speed = true;
  const Comparison c = compare_results(base, slow, adjust);
  ASSERT_EQ(c.speed_factors.size(), 1u);
  EXPECT_NEAR(c.speed_factors.at("1"), host, 1e-12);
  ASSERT_EQ(c.notes.size(), 2u);
  EXPECT_NE(c.notes.front().find("unless divided out (--adjust-speed, below)"), std::string::npos)
      << c.notes.front();
  EXPECT_NE(c.notes.back().find("1 thread(s): x1.085) before the ratios"), std::string::npos)
      << c.notes.back();
  for (const auto& item : c.cases) {
    if (item.case_id == k_mul) {
      EXPECT_EQ(item.verdict, results::Verdict::slower);
      EXPECT_NEAR(item.ratio, 1.2, 1e-9);
      EXPECT_NEAR(item.new_time / item.base_time, 1.2 * host, 1e-9); // the times as measured
    } else if (item.case_id == gpu) {
      EXPECT_DOUBLE_EQ(item.speed_factor, 1.0);
      EXPECT_NEAR(item.ratio, host, 1e-9);
    } else {
      EXPECT_TRUE(item.verdict == results::Verdict::same ||
                  item.reason.rfind("cannot tell", 0) == 0)
          << item.case_id << ": " << item.verdict << " " << item.reason;
      EXPECT_NEAR(item.ratio, 1.0, 1e-9) << item.case_id;
      EXPECT_NEAR(item.speed_factor, host, 1e-12);
    }
  }
  EXPECT_NEAR(c.agreement.median_abs_change, 0.0, 1e-9);
  const Json j = to_json(c);
  EXPECT_TRUE(j["adjust_speed"].get<bool>());
  EXPECT_NEAR(j["speed_factors"]["1"].get<double>(), host, 1e-12);
  std::ostringstream csv;
  write_csv(c, csv);
  EXPECT_NE(csv.str().find(",speed_factor,"), std::string::npos);
  // Close speeds are divided too, and the note on different speeds is left out below the tolerance.
  slow.summary["slow_spells"] = fastest(73.350e-6);
  const Comparison close = compare_results(base, slow, adjust);
  EXPECT_NEAR(close.speed_factors.at("1"), 73.350 / 72.408, 1e-9);
  EXPECT_NEAR(find(close, k_mul).ratio, 1.2 * host * 72.408 / 73.350, 1e-9);
  ASSERT_EQ(close.notes.size(), 1u);
  EXPECT_NE(close.notes.front().find(
                "--adjust-speed: NEW's CPU times divided by the machine's speed ratio "
                "(fastest speed canary, NEW's over BASE's; 1 thread(s): x1.013)"),
            std::string::npos)
      << close.notes.front();
  // Files with no canary at a common thread count: nothing to divide by, and said so.
  slow.summary["slow_spells"] = Json{{"fastest_canary_by_threads", {{"2", 78.527e-6}}}};
  const Comparison none = compare_results(base, slow, adjust);
  EXPECT_TRUE(none.speed_factors.empty());
  EXPECT_NEAR(find(none, k_mul).ratio, 1.2 * host, 1e-9);
  ASSERT_EQ(none.notes.size(), 1u);
  EXPECT_NE(none.notes.front().find("nothing divided"), std::string::npos) << none.notes.front();
}

TEST(Compare, AgreementCountsTheCasesPastX125EitherWay) {
  std::vector<CaseComparison> cases(7);
  const double ratios[] = {1.0, 1.3, 0.79, 0.81, 1.25, 1.0 / 1.25, std::nan("")};
  for (std::size_t i = 0; i < cases.size(); ++i)
    cases[i].ratio = ratios[i];
  const Agreement a = agreement_of(cases);
  EXPECT_EQ(a.cases, 6u);          // the NaN ratio is no case
  EXPECT_EQ(a.past_far_ratio, 2u); // 1.3 and 0.79; 1.25 and 1/1.25 themselves are not past
  ASSERT_FALSE(a.worst.empty());
  EXPECT_EQ(a.worst.front(), 1u); // x1.3 is farthest from 1 (|log| 0.262 against 0.236)
}

TEST(Compare, SyntheticTwentyPercentSlowdownIsExactlyThatRegression) {
  const auto base = results::load_results(k_dir + "base.json");
  const auto slow = results::load_results(k_dir + "slow_mul.json");
  const Comparison c = compare_results(base, slow, {});
  EXPECT_TRUE(c.regressed());
  EXPECT_EQ(c.count(results::Verdict::slower), 1u);
  EXPECT_EQ(c.count(results::Verdict::same) + c.count(results::Verdict::unknown),
            4u); // the rest: unchanged or cannot tell
  const auto& mul = find(c, k_mul);
  EXPECT_EQ(mul.verdict, results::Verdict::slower);
  EXPECT_NEAR(mul.ratio, 1.2, 1e-12);
  // Every slow replicate above every base one: the exact U test's smallest p for 5 vs 5, 2/252.
  EXPECT_NEAR(mul.p_value, 2.0 / 252.0, 1e-12);
  EXPECT_NEAR(c.geomean_ratio, std::pow(1.2, 1.0 / 5.0), 1e-12);

  // The other way round it is faster, and nothing regressed.
  const Comparison back = compare_results(slow, base, {});
  EXPECT_FALSE(back.regressed());
  EXPECT_EQ(find(back, k_mul).verdict, results::Verdict::faster);

  // Past a 25% threshold the same shift is not a regression.
  CompareOptions loose;
  loose.threshold = 0.25;
  EXPECT_FALSE(compare_results(base, slow, loose).regressed());
}

TEST(Compare, CasesInOneFileOnlyAndUnknowns) {
  auto base = results::load_results(k_dir + "base.json");
  auto candidate = base;
  candidate.cases.erase(candidate.cases.begin());         // add only in base
  candidate.cases[0].status = results::Status::error;     // mm failed in new
  candidate.cases[1].timing.repetition_medians.resize(1); // mul: one repetition
  auto extra = candidate.cases[2];
  extra.c.case_id = "relu/self=128/float32/cpu/t1/forward";
  candidate.cases.push_back(extra); // only in new
  const Comparison c = compare_results(base, candidate, {});
  EXPECT_EQ(c.only_in_base,
            std::vector<std::string>{"add/self=16,other=16/float32/cpu/t1/forward"});
  EXPECT_EQ(c.only_in_new, std::vector<std::string>{"relu/self=128/float32/cpu/t1/forward"});
  EXPECT_EQ(find(c, "mm/self=8x8,mat2=8x8/float32/cpu/t1/forward").verdict,
            results::Verdict::unknown);
  EXPECT_EQ(find(c, k_mul).verdict, results::Verdict::unknown);
  EXPECT_EQ(find(c, k_mul).reason, "too few repetitions (5 and 1, need 4)");
  const auto cannot_tell = std::count_if(c.cases.begin(), c.cases.end(), [](const auto& item) {
    return item.reason.rfind("cannot tell", 0) == 0;
  });
  EXPECT_EQ(c.count(results::Verdict::unknown) - static_cast<std::size_t>(cannot_tell), 2u);
}

// Repetitions that all come from one process share its state (layout, where its heap landed):
// they are no replicates of the code. With one process on either side the verdict is unknown,
// with two or more (run --processes, --isolate) the U test on the repetition medians decides.
TEST(Compare, OneProcessASideIsUnknown) {
  const auto base = results::load_results(k_dir + "base.json");
  const auto slow = results::load_results(k_dir + "slow_mul.json");
  auto with = [](results::ResultSet set, int processes) {
    set.context["isolate"] = false;
    set.context["processes"] = processes;
    return set;
  };
  const Comparison one = compare_results(with(base, 1), slow, {});
  const CaseComparison& mul = find(one, k_mul);
  EXPECT_EQ(mul.verdict, results::Verdict::unknown);
  EXPECT_EQ(mul.base_processes, 1u);
  EXPECT_EQ(mul.new_processes, 5u); // --isolate: one a repetition
  EXPECT_EQ(mul.reason.rfind("one process on the base side", 0), 0u) << mul.reason;
  EXPECT_TRUE(std::isnan(mul.p_value));
  EXPECT_FALSE(one.regressed());
  // Files from before --processes (no such key) were measured in one process, too.
  results::ResultSet old = slow;
  old.context.erase("processes");
  old.context.erase("isolate");
  EXPECT_EQ(
      find(compare_results(base, old, {}), k_mul).reason.rfind("one process on the new side", 0),
      0u);
  // Two processes a side (5 repetitions split 3 + 2): decided.
  const Comparison two = compare_results(with(base, 2), with(slow, 2), {});
  EXPECT_EQ(find(two, k_mul).verdict, results::Verdict::slower);
  EXPECT_EQ(find(two, k_mul).base_processes, 2u);
  EXPECT_TRUE(two.regressed());
}

TEST(Compare, NothingInCommonIsIncompatible) {
  auto base = results::load_results(k_dir + "base.json");
  auto other = base;
  for (auto& r : other.cases)
    r.c.case_id += "x";
  EXPECT_THROW(compare_results(base, other, {}), ResultsError);
}

TEST(Compare, Formats) {
  const auto base = results::load_results(k_dir + "base.json");
  const auto slow = results::load_results(k_dir + "slow_mul.json");
  const Comparison c = compare_results(base, slow, {});
  std::ostringstream md, json, csv;
  core::write_as(comparison_formats(), "md", c, md);
  core::write_as(comparison_formats(), "json", c, json);
  core::write_as(comparison_formats(), "csv", c, csv);
  EXPECT_NE(md.str().find("| `" + k_mul + "` | 516.9 ns | 620.3 ns | 1.200 |"), std::string::npos)
      << md.str();
  EXPECT_NE(md.str().find("**1 slower, 0 faster, 1 same, 3 unknown**"), std::string::npos)
      << md.str();
  const Json parsed = Json::parse(json.str());
  EXPECT_EQ(parsed["regressed"], true);
  EXPECT_EQ(parsed["counts"]["slower"], 1);
  EXPECT_NE(csv.str().find("\"" + k_mul + "\",slower,,0.5169,0.6203,1.200000,"), std::string::npos)
      << csv.str();
  std::ostringstream ignored;
  EXPECT_THROW(core::write_as(comparison_formats(), "xml", c, ignored), UsageError);
}

TEST(Compare, AnInPlaceCaseOnItsMadeInputsAndOneOnWhatEarlierCallsLeftAreNeverCompared) {
  const auto base = results::load_results(k_dir + "base.json");
  auto restored = base;
  for (auto& c : restored.cases)
    c.timing.restored = {"self"};
  const Comparison c = compare_results(base, restored, {});
  EXPECT_EQ(c.count(results::Verdict::unknown), c.cases.size());
  EXPECT_NE(c.cases.front().reason.find(
                "different inputs: base restores none, new restores self before every timed call"),
            std::string::npos)
      << c.cases.front().reason;
  for (const auto& item : compare_results(restored, restored, {}).cases) // compared: same, or
    EXPECT_TRUE(item.verdict == results::Verdict::same ||
                item.reason.rfind("cannot tell", 0) == 0); // noisy
}

} // namespace
} // namespace opbench::compare

namespace opbench::compare {
namespace {

TEST(Compare, DifferentKindsOfTimeAreNeverCompared) {
  const auto base = results::load_results(k_dir + "base.json");
  auto gpu = base;
  for (auto& c : gpu.cases)
    c.timing.measures = results::Measures::gpu;
  const Comparison c = compare_results(base, gpu, {});
  EXPECT_EQ(c.count(results::Verdict::unknown), c.cases.size());
  EXPECT_NE(c.cases.front().reason.find("different times: base host, new gpu"), std::string::npos);
}

} // namespace
} // namespace opbench::compare
