// The paired verdict of `opbench ab` (ab/paired.hpp) on made-up rounds.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "opbench/ab/ab.hpp"
#include "opbench/ab/paired.hpp"

using opbench::ab::judge_paired;
using opbench::ab::PairedCase;
using opbench::ab::PairedOptions;
using opbench::ab::suite_ratio;
using opbench::results::Verdict;

namespace {

// A case whose new side is `factor` x the base in every round, each side with its own noise of
// `noise` (relative, normal) and both with the round's drift of the host.
PairedCase made(const std::string& id, double factor, double noise, int rounds,
                std::mt19937_64& rng) {
  std::normal_distribution<double> n(0, noise);
  std::normal_distribution<double> drift(0, 0.05);
  PairedCase c;
  c.case_id = id;
  for (int r = 0; r < rounds; ++r) {
    const double host = std::exp(drift(rng));
    c.base.push_back(1e-5 * host * std::exp(n(rng)));
    c.new_times.push_back(1e-5 * factor * host * std::exp(n(rng)));
  }
  return c;
}

} // namespace

TEST(PairedVerdict, TheHostsDriftCancelsAndIdenticalSidesAreSame) {
  std::mt19937_64 rng(1);
  std::vector<PairedCase> cases;
  for (int i = 0; i < 50; ++i)
    cases.push_back(made("aa" + std::to_string(i), 1.0, 0.01, 10, rng));
  judge_paired(cases, PairedOptions{});
  for (const auto& c : cases) {
    EXPECT_EQ(c.verdict, Verdict::same) << c.case_id << " " << c.reason;
    EXPECT_EQ(c.pairs, 10u);
    EXPECT_NEAR(c.ratio, 1.0, 0.02);
    EXPECT_LT(c.seeable, 0.05);
    EXPECT_DOUBLE_EQ(c.level, 0.95);
  }
}

TEST(PairedVerdict, ATenPercentSlowdownAmongIdenticalCasesIsTheOnlySlowerOne) {
  std::mt19937_64 rng(2);
  std::vector<PairedCase> cases;
  for (int i = 0; i < 200; ++i)
    cases.push_back(made("aa" + std::to_string(i), 1.0, 0.01, 10, rng));
  cases.push_back(made("slowed", 1.10, 0.01, 10, rng));
  judge_paired(cases, PairedOptions{});
  for (std::size_t i = 0; i + 1 < cases.size(); ++i) {
    EXPECT_NE(cases[i].verdict, Verdict::slower) << cases[i].case_id;
    EXPECT_NE(cases[i].verdict, Verdict::faster) << cases[i].case_id;
  }
  const PairedCase& slowed = cases.back();
  EXPECT_EQ(slowed.verdict, Verdict::slower) << slowed.reason;
  EXPECT_GT(slowed.low, 1.05);
  EXPECT_GT(slowed.level, 0.95); // wider: one change picked among 201 cases
  EXPECT_NEAR(slowed.level, 1 - 0.05 / 201, 1e-12);
}

TEST(PairedVerdict, TheFalseDiscoveryRateIsHeldOverAllCases) {
  // Past the threshold at 95% alone; among 300 unchanged cases the adjusted interval is wider.
  PairedCase edge;
  edge.case_id = "edge";
  edge.base = {1, 1, 1, 1, 1, 1, 1, 1};
  edge.new_times = {1.09, 1.12, 1.08, 1.11, 1.07, 1.10, 1.09, 1.11};
  std::vector<PairedCase> alone = {edge};
  judge_paired(alone, PairedOptions{});
  EXPECT_EQ(alone[0].verdict, Verdict::slower);
  std::mt19937_64 rng(3);
  std::vector<PairedCase> many = {edge};
  for (int i = 0; i < 300; ++i)
    many.push_back(made("aa" + std::to_string(i), 1.0, 0.02, 8, rng));
  judge_paired(many, PairedOptions{});
  EXPECT_EQ(many[0].verdict, Verdict::unknown);
  EXPECT_NE(many[0].reason.find("its interval reaches a change of"), std::string::npos)
      << many[0].reason;
  EXPECT_GT(many[0].seeable, 0.05);
}

TEST(PairedVerdict, FasterAndAChangeWithinTheThresholdAreTold) {
  PairedCase faster{"faster", {1, 1, 1, 1, 1, 1}, {0.80, 0.82, 0.79, 0.81, 0.80, 0.80}};
  PairedCase small{"small", {1, 1, 1, 1, 1, 1}, {1.02, 1.021, 1.019, 1.02, 1.022, 1.018}};
  std::vector<PairedCase> cases = {faster, small};
  judge_paired(cases, PairedOptions{});
  EXPECT_EQ(cases[0].verdict, Verdict::faster);
  EXPECT_NEAR(cases[0].ratio, 0.80, 0.01);
  EXPECT_EQ(cases[1].verdict, Verdict::same); // 2% is within the 5% threshold, and known to be
  PairedOptions tight;
  tight.threshold = 0.01;
  judge_paired(cases, tight);
  EXPECT_EQ(cases[1].verdict, Verdict::slower);
}

TEST(PairedVerdict, RoundsWithoutBothSidesAreNoPairsAndTooFewAreUnknown) {
  const double nan = std::nan("");
  PairedCase c{"few", {1, nan, 1, 1, 0}, {1.5, 1.5, nan, 1.5, 1.5}};
  std::vector<PairedCase> cases = {c};
  judge_paired(cases, PairedOptions{});
  EXPECT_EQ(cases[0].pairs, 2u);
  EXPECT_EQ(cases[0].verdict, Verdict::unknown);
  EXPECT_EQ(cases[0].reason, "2 paired round(s); the verdict needs 3");
  EXPECT_TRUE(std::isnan(cases[0].p_value));
  EXPECT_NEAR(cases[0].ratio, 1.5, 1e-12);
}

TEST(PairedVerdict, RoundsThatAgreeExactlyGiveAPointInterval) {
  PairedCase c{"exact", {2, 2, 2}, {2, 2, 2}};
  PairedCase d{"doubled", {2, 2, 2}, {4, 4, 4}};
  std::vector<PairedCase> cases = {c, d};
  judge_paired(cases, PairedOptions{});
  EXPECT_EQ(cases[0].verdict, Verdict::same);
  EXPECT_EQ(cases[0].low, 1.0);
  EXPECT_EQ(cases[0].high, 1.0);
  EXPECT_EQ(cases[1].verdict, Verdict::slower);
  EXPECT_EQ(cases[1].ratio, 2.0);
}

TEST(PairedVerdict, TheSuiteRatioIsOverCasesPairedInEveryRound) {
  std::mt19937_64 rng(4);
  std::vector<PairedCase> cases;
  for (int i = 0; i < 40; ++i)
    cases.push_back(made("c" + std::to_string(i), 1.10, 0.02, 8, rng));
  PairedCase gap = made("gap", 3.0, 0.02, 8, rng);
  gap.new_times[3] = std::nan(""); // not in every round: left out of the suite's ratio
  cases.push_back(gap);
  judge_paired(cases, PairedOptions{});
  const auto suite = suite_ratio(cases, PairedOptions{});
  EXPECT_EQ(suite.cases, 40u);
  EXPECT_EQ(suite.rounds, 8u);
  EXPECT_NEAR(suite.ratio, 1.10, 0.01);
  EXPECT_LT(suite.low, suite.ratio);
  EXPECT_GT(suite.high, suite.ratio);
  EXPECT_GT(suite.low, 1.08);
}

TEST(PairedVerdict, ARoundWhoseSideMetASlowSpellDoesNotDecide) {
  // Ten rounds about 12% slower, one of them with its base side caught 2.7x slow; and an
  // unchanged case with two such rounds, one either way.
  PairedCase slowed{"slowed",
                    {1, 1, 1, 1, 1, 1, 1, 1, 2.7, 1},
                    {1.12, 1.11, 1.13, 1.12, 1.12, 1.11, 1.13, 1.12, 1.12, 1.12}};
  PairedCase unchanged{"unchanged",
                       {1, 1, 1, 1, 2.7, 1, 1, 1, 1, 1},
                       {1.01, 0.99, 1.0, 1.01, 1.0, 1.0, 0.99, 2.7, 1.0, 1.01}};
  std::vector<PairedCase> cases = {slowed, unchanged};
  judge_paired(cases, PairedOptions{});
  EXPECT_EQ(cases[0].verdict, Verdict::slower) << cases[0].reason;
  EXPECT_NEAR(cases[0].ratio, 1.12, 0.01);
  EXPECT_EQ(cases[1].verdict, Verdict::same) << cases[1].reason;
  EXPECT_NEAR(cases[1].ratio, 1.0, 0.01);
}

namespace opbench::ab {
namespace {

// A duet's halves are whole cores: hardware threads of one core never serve both sides.
TEST(DuetCpus, HardwareThreadsOfACoreStayInOneHalf) {
  // Linux numbers a core's second hardware thread after all the first ones: 0-3 and 4-7 on
  // cores 0-3.
  const auto by_core = [](int cpu) { return "0/" + std::to_string(cpu % 4); };
  const auto halves = split_cpus({0, 1, 2, 3, 4, 5, 6, 7}, by_core);
  EXPECT_EQ(halves[0], (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(halves[1], (std::vector<int>{2, 3, 6, 7}));
  const auto own = [](int cpu) { return "0/" + std::to_string(cpu); };
  EXPECT_EQ(split_cpus({0, 1}, own)[0], std::vector<int>{0});
  EXPECT_EQ(split_cpus({0, 1}, own)[1], std::vector<int>{1});
  EXPECT_EQ(split_cpus({2, 5, 7}, own)[0], std::vector<int>{2});
  EXPECT_EQ(split_cpus({2, 5, 7}, own)[1], (std::vector<int>{5, 7}));
  // One core with two hardware threads: nothing else to split.
  const auto one = [](int) { return std::string("0/0"); };
  EXPECT_EQ(split_cpus({0, 1}, one)[0], std::vector<int>{0});
  EXPECT_EQ(split_cpus({0, 1}, one)[1], std::vector<int>{1});
}

} // namespace
} // namespace opbench::ab

TEST(AbRounds, ACaseFoundTheSameStopsOnceItsSeeableChangeIsWithinThePrecision) {
  using opbench::ab::AbCase;
  using opbench::ab::AbResult;
  using opbench::ab::AbSettings;
  using opbench::ab::still_open;
  const auto with = [](Verdict verdict, std::size_t pairs, double seeable) {
    AbCase c;
    c.paired.verdict = verdict;
    c.paired.pairs = pairs;
    c.paired.seeable = seeable;
    return c;
  };
  AbResult result;
  result.cases = {with(Verdict::same, 6, 0.045),   with(Verdict::same, 6, 0.02),
                  with(Verdict::same, 4, 0.01),    with(Verdict::slower, 10, 0.08),
                  with(Verdict::unknown, 10, 0.2), with(Verdict::faster, 6, 0.09)};
  AbSettings settings;
  settings.stop_after = 5;
  // The default: within 3%.
  EXPECT_EQ(still_open(result, settings), (std::vector<std::size_t>{0, 2, 3, 4, 5}));
  // As soon as found the same (after five pairs): the first two stop.
  settings.precision = 0;
  EXPECT_EQ(still_open(result, settings), (std::vector<std::size_t>{2, 3, 4, 5}));
  // Within 3%: the same case that could not have seen a 4.5% change goes on.
  settings.precision = 0.03;
  EXPECT_EQ(still_open(result, settings), (std::vector<std::size_t>{0, 2, 3, 4, 5}));
  settings.precision = 0.05;
  EXPECT_EQ(still_open(result, settings), (std::vector<std::size_t>{2, 3, 4, 5}));
  // Every case every round.
  settings.stop_after = 0;
  EXPECT_EQ(still_open(result, settings).size(), result.cases.size());
}
