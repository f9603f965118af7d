#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "opbench/gate/gate.hpp"
#include "opbench/stats/distributions.hpp"

namespace opbench::gate {
namespace {

// n nights of log-normal noise with sd `sigma` around 100 us, from a fixed seed.
std::vector<double> nights(std::size_t n, double sigma, std::mt19937_64& random) {
  std::normal_distribution<double> noise(0.0, sigma);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(100e-6 * std::exp(noise(random)));
  return out;
}

TEST(Gate, ACandidateIsConfirmedOnlyByASecondMeasurement) {
  std::mt19937_64 random(1);
  GateInput in{"a", nights(20, 0.01, random), 112e-6};
  GateResult r = judge({in}, {});
  ASSERT_EQ(r.cases.size(), 1u);
  const GateCase& c = r.cases[0];
  EXPECT_TRUE(c.candidate);
  EXPECT_EQ(c.verdict, results::Verdict::unknown); // not an alert until confirmed, nor `same`
  EXPECT_EQ(c.reason, "candidate: slower x1.122, not confirmed");
  EXPECT_NEAR(c.ratio, 1.12, 0.03);
  EXPECT_FALSE(r.regressed());
  GateResult confirmed = r;
  confirm(confirmed, {"a"}, {111e-6});
  EXPECT_EQ(confirmed.cases[0].verdict, results::Verdict::slower);
  EXPECT_TRUE(confirmed.regressed());
  GateResult refuted = r;
  confirm(refuted, {"a"}, {100.5e-6}); // one bad night: the second measurement is back to normal
  EXPECT_EQ(refuted.cases[0].verdict, results::Verdict::same);
  EXPECT_EQ(refuted.cases[0].reason, "not confirmed");
  GateResult missing = r;
  confirm(missing, {"b"}, {100e-6});
  EXPECT_EQ(missing.cases[0].verdict, results::Verdict::unknown);
}

TEST(Gate, AMoveWhileTheDeviceMovedIsNoVerdictOnTheCodeUnlessAbMeasuredIt) {
  std::mt19937_64 random(1);
  GateInput in{"a", nights(20, 0.01, random), 112e-6};
  in.device_moved = "its SM clock read 1584 MHz tonight, -20% from its nights' usual 1980 MHz";
  GateInput steady{"b", nights(20, 0.01, random), 112e-6};
  GateResult r = judge({in, steady}, {});
  confirm(r, {"a", "b"}, {111e-6, 111e-6}); // the same build again, on the same capped device
  hold_device_moves(r);
  EXPECT_EQ(r.cases[0].verdict, results::Verdict::unknown);
  EXPECT_EQ(r.cases[0].reason.rfind("slower x1.1", 0), 0u) << r.cases[0].reason;
  EXPECT_NE(r.cases[0].reason.find("while the device moved (" + in.device_moved +
                                   "): not a verdict on the code"),
            std::string::npos)
      << r.cases[0].reason;
  EXPECT_EQ(r.cases[1].verdict, results::Verdict::slower); // its device did not move
  // A/B against the previous build measured both builds on that device: its verdict stands.
  GateResult ab = judge({in}, {});
  ab.ab = true;
  ab.cases[0].verdict = results::Verdict::slower;
  hold_device_moves(ab);
  EXPECT_EQ(ab.cases[0].verdict, results::Verdict::slower);
}

TEST(Gate, AThresholdRuleSetsItsCasesFloor) {
  // 12% over quiet nights is a candidate at the default 3% floor, not at a rule's 15%, and the
  // MDE is never under the case's floor.
  std::mt19937_64 random(1);
  GateInput in{"a", nights(20, 0.01, random), 112e-6};
  in.effect_floor = 0.15;
  in.floor_rule = "tag noisy";
  const GateResult r = judge({in}, {});
  EXPECT_FALSE(r.cases[0].candidate);
  EXPECT_DOUBLE_EQ(r.cases[0].floor, 0.15);
  EXPECT_EQ(r.cases[0].floor_rule, "tag noisy");
  EXPECT_GE(r.cases[0].mde, 0.15);
  in.effect_floor.reset();
  EXPECT_TRUE(judge({in}, {}).cases[0].candidate);
  EXPECT_DOUBLE_EQ(judge({in}, {}).cases[0].floor, GateOptions{}.effect_floor);
}

TEST(Gate, AbConfirmationAgainstThePreviousBuild) {
  std::mt19937_64 random(6);
  const auto history = nights(20, 0.01, random);
  const GateResult first = judge({{"slow", history, 115e-6},
                                  {"fluke", history, 115e-6},
                                  {"few", history, 115e-6},
                                  {"calm", history, 100e-6}},
                                 {});
  ASSERT_EQ(first.candidates(), 3u);
  // `opbench ab` of the candidates, the previous build (base) against tonight's (new), 10 rounds:
  // "slow" is 15% slower in tonight's build, "fluke" is not (tonight's first value was a slow
  // night), "few" has two paired rounds only.
  auto paired = [](const std::string& id, double change, std::size_t rounds) {
    ab::PairedCase p;
    p.case_id = id;
    for (std::size_t k = 0; k < rounds; ++k) {
      const double hour = 100e-6 * (1 + 0.02 * static_cast<double>(k % 5)); // drifts, both alike
      p.base.push_back(hour * (1 + 0.002 * static_cast<double>(k % 3)));
      p.new_times.push_back(hour * change * (1 + 0.002 * static_cast<double>((k + 1) % 3)));
    }
    return p;
  };
  GateResult r = first;
  confirm_ab(r, {paired("slow", 1.15, 10), paired("fluke", 1.0, 10), paired("few", 1.15, 2)});
  EXPECT_TRUE(r.ab);
  EXPECT_EQ(r.cases[0].verdict, results::Verdict::slower);
  EXPECT_EQ(r.cases[0].reason, "confirmed A/B against the previous build (x1.151 over 10 rounds)");
  EXPECT_NEAR(r.cases[0].confirm_ratio, 1.15, 0.002);
  EXPECT_LT(r.cases[0].confirm_p, 0.001);
  EXPECT_EQ(r.cases[1].verdict, results::Verdict::same);
  EXPECT_EQ(r.cases[1].reason,
            "not confirmed A/B against the previous build (x1.001 over 10 rounds)");
  EXPECT_EQ(r.cases[2].verdict, results::Verdict::unknown);
  EXPECT_EQ(r.cases[2].reason, "candidate: slower x1.144, not confirmed: A/B has 2 paired "
                               "round(s), too few to decide");
  EXPECT_EQ(r.cases[3].verdict, results::Verdict::same); // no candidate: nothing to confirm
  EXPECT_TRUE(r.cases[3].reason.empty());
  // A/B that moves the other way than the candidate confirms nothing; a candidate ab did not
  // measure stays unknown.
  GateResult opposite = first;
  confirm_ab(opposite, {paired("slow", 0.85, 10)});
  EXPECT_EQ(opposite.cases[0].verdict, results::Verdict::same);
  EXPECT_EQ(opposite.cases[1].verdict, results::Verdict::unknown);
  EXPECT_NE(opposite.cases[1].reason.find("not measured A/B"), std::string::npos)
      << opposite.cases[1].reason;
  // A change A/B confirms but under the case's floor (3%) is not confirmed.
  GateResult small = first;
  confirm_ab(small, {paired("slow", 1.02, 10)});
  EXPECT_EQ(small.cases[0].verdict, results::Verdict::same) << small.cases[0].reason;
  EXPECT_LT(small.cases[0].confirm_p, 0.001);
}

// A second look: the candidate test on the geometric mean of two values of the night, with half
// a night's variance. A move seen twice becomes a candidate though neither value alone was one; a
// candidate whose second value is back at the baseline is none; no second value: tonight decides.
TEST(Gate, ASecondLookJudgesBothValuesOfTheNight) {
  std::mt19937_64 random(2);
  const auto history = nights(20, 0.01, random);
  // The nights: baseline 99.48 us, noise 0.84%.
  GateResult r = judge({{"twice", history, 102e-6},
                        {"fluke", history, 104.5e-6},
                        {"calm", history, 100e-6},
                        {"unseen", history, 104.5e-6},
                        {"faster", history, 96.5e-6}},
                       {});
  const auto& o = r.options;
  const GateCase& twice = r.cases[0];
  // 2.5% alone (p 0.01): no candidate, but under the look level.
  ASSERT_GT(twice.p_value, o.alpha);
  ASSERT_LT(twice.p_value, o.look_alpha);
  EXPECT_FALSE(twice.candidate);
  EXPECT_TRUE(twice.second_look);
  EXPECT_TRUE(r.cases[1].candidate); // 4.5% alone
  EXPECT_FALSE(r.cases[2].second_look);
  EXPECT_EQ(r.second_looks(), 4u);
  EXPECT_FALSE(r.looked);
  const double first_faster_p = r.cases[4].p_value;
  second_look(r, {"twice", "fluke", "calm", "faster"}, {104.5e-6, 99.5e-6, 130e-6, 96e-6});
  EXPECT_TRUE(r.looked);
  const double base = r.cases[0].baseline;
  // twice: both values together, sqrt(102 x 104.5) us over the baseline; p of the mean of two logs
  // against the nights: t = log(ratio) / (s sqrt(1/2 + 1/n)).
  EXPECT_TRUE(r.cases[0].candidate);
  EXPECT_EQ(r.cases[0].reason, "candidate: slower x1.038, not confirmed");
  EXPECT_NEAR(r.cases[0].look_ratio, std::sqrt(102e-6 * 104.5e-6) / base, 1e-12);
  EXPECT_DOUBLE_EQ(r.cases[0].second, 104.5e-6);
  const double t = std::log(r.cases[0].look_ratio) / (r.cases[0].noise * std::sqrt(0.5 + 1.0 / 20));
  EXPECT_NEAR(r.cases[0].look_p, stats::two_sided_t_p(t, 19), 1e-12);
  EXPECT_LT(r.cases[0].look_p, o.alpha);
  EXPECT_NEAR(r.cases[0].judged_ratio(), r.cases[0].look_ratio, 1e-15);
  // fluke: 4.5% tonight, back to the baseline in the second look: under the floor together.
  EXPECT_FALSE(r.cases[1].candidate);
  EXPECT_EQ(r.cases[1].reason, "not a candidate after a second look");
  // calm did not ask for one: its second value is not used.
  EXPECT_FALSE(r.cases[2].candidate);
  EXPECT_TRUE(std::isnan(r.cases[2].look_ratio));
  // unseen asked, had no second value: tonight's value alone decides, and the reason says so.
  EXPECT_TRUE(r.cases[3].candidate);
  EXPECT_EQ(r.cases[3].reason, "candidate: slower x1.050, not confirmed (no second look: judged on "
                               "tonight's value alone)");
  // faster: -3.0% alone (p 0.0023, just over the level), -3.3% together: a faster candidate.
  ASSERT_GT(first_faster_p, o.alpha);
  EXPECT_TRUE(r.cases[4].candidate);
  EXPECT_EQ(r.cases[4].reason, "candidate: faster x0.968, not confirmed");
  EXPECT_EQ(r.candidates(), 3u);
  // The confirmation goes by the move the candidate was judged on.
  confirm(r, {"twice", "faster"}, {104e-6, 96.2e-6});
  EXPECT_EQ(r.cases[0].verdict, results::Verdict::slower);
  EXPECT_EQ(r.cases[4].verdict, results::Verdict::faster);
}

TEST(Gate, SmallMovesShortHistoriesAndAbsentCases) {
  std::mt19937_64 random(2);
  const auto history = nights(20, 0.01, random);
  // Under the effect floor (3%) even when significant: never a candidate.
  GateResult r = judge({{"small", history, 102.5e-6},
                        {"short", nights(3, 0.01, random), 150e-6},
                        {"gone", history, std::nullopt}},
                       {});
  EXPECT_FALSE(r.cases[0].candidate);
  EXPECT_EQ(r.cases[1].verdict, results::Verdict::unknown);
  EXPECT_EQ(r.cases[1].reason, "history has 3 night(s), 5 needed");
  EXPECT_EQ(r.cases[2].verdict, results::Verdict::unknown);
  EXPECT_EQ(r.cases[2].reason, "no value tonight");
}

TEST(Gate, AnUnstableNightIsUnknownNotACandidate) {
  std::mt19937_64 random(3);
  GateInput in{"a", nights(20, 0.01, random), 150e-6};
  in.unstable = true; // tonight's repetition medians over 3x apart
  const GateResult r = judge({in}, {});
  EXPECT_FALSE(r.cases[0].candidate);
  EXPECT_EQ(r.cases[0].verdict, results::Verdict::unknown);
  EXPECT_EQ(r.cases[0].reason, "unstable tonight: its repetition medians are over 3x apart");
  EXPECT_NEAR(r.cases[0].ratio, 1.5, 0.03);
  EXPECT_FALSE(r.regressed());
}

// The gate's noise of a set of values: 1.4826 MAD of the logs on symmetric data, the quantile
// range where a minority mode leaves the MAD at 0; non-positive values do not count.
TEST(Gate, RobustLogSdSeesAMinorityMode) {
  const std::vector<double> even = {std::exp(-0.02), std::exp(-0.01), 1.0, std::exp(0.01),
                                    std::exp(0.02)};
  EXPECT_NEAR(robust_log_sd(even), 1.4826 * 0.01, 1e-9); // range: 0.032 / 2.563 = 0.0125, smaller
  std::vector<double> one_slow(9, 1.0);
  one_slow.push_back(2.0);
  EXPECT_NEAR(robust_log_sd(one_slow), 0.1 * std::log(2.0) / 2.563,
              1e-9); // q90 interpolates a tenth of the way
  one_slow.push_back(0.0);
  one_slow.push_back(-1.0);
  EXPECT_NEAR(robust_log_sd(one_slow), 0.1 * std::log(2.0) / 2.563, 1e-9);
  EXPECT_TRUE(std::isnan(robust_log_sd({})));
  EXPECT_TRUE(std::isnan(robust_log_sd({0.0})));
}

TEST(Gate, NoiseMdeAndBlindness) {
  // History of ten nights at 1 and one at e^0.1 (x100 us): median 1, MAD of logs 0, and the
  // 10%-90% range of logs 0 too (rank 9 of 0..10 is still 1): noise at the floor.
  std::vector<double> flat(10, 100e-6);
  flat.push_back(100e-6 * std::exp(0.1));
  GateInput quiet{"q", flat, 100e-6};
  GateResult r = judge({quiet}, {});
  EXPECT_DOUBLE_EQ(r.cases[0].noise, GateOptions{}.noise_floor);
  EXPECT_NEAR(r.cases[0].high, 100e-6 * std::exp(0.1), 1e-15);
  // One night in five 20% slow: MAD does not see it, the quantile range does.
  std::vector<double> mode(16, 100e-6);
  for (int i = 0; i < 4; ++i)
    mode.push_back(120e-6);
  GateResult minority = judge({{"m", mode, 100e-6}}, {});
  EXPECT_GT(minority.cases[0].noise, 0.05);
  EXPECT_NEAR(r.cases[0].baseline, 100e-6, 1e-15);
  // A noisy case (sd 5%) cannot see 10% from one night: blind.
  std::mt19937_64 random(3);
  GateResult noisy = judge({{"n", nights(20, 0.05, random), 100e-6}}, {});
  EXPECT_TRUE(noisy.cases[0].blind);
  EXPECT_GT(noisy.cases[0].mde, 0.10);
  // ... and a blind case is never `same`: it says what it could have seen.
  EXPECT_EQ(noisy.cases[0].verdict, results::Verdict::unknown);
  EXPECT_EQ(noisy.cases[0].reason.rfind("blind: a change under ", 0), 0u) << noisy.cases[0].reason;
  // MDE = exp((t(1 - alpha/2, n-1) + t(power, n-1)) s sqrt(1 + 1/n)) - 1 for s = 1%, n = 20:
  // t(0.999, 19) = 3.5794, t(0.8, 19) = 0.8610.
  GateOptions o;
  o.noise_floor = 0.01;
  GateResult floor = judge({{"f", std::vector<double>(20, 100e-6), 100e-6}}, o);
  EXPECT_NEAR(floor.cases[0].mde, std::exp((3.5794 + 0.8610) * 0.01 * std::sqrt(1.05)) - 1, 2e-4);
  // After a second look the rule has two looks: 80% of moves of 3.3707 s are caught (tonight past
  // t(0.975, 19) = 2.0930 at scale s sqrt(1.05), both values' mean past 3.5794 at s sqrt(0.55);
  // the integral computed independently of the code under test, in Python).
  second_look(floor, {}, {});
  EXPECT_NEAR(floor.cases[0].mde, std::exp(3.3707 * 0.01) - 1, 2e-4);
  // A noise of 2.5%: blind with one look (MDE 12.0%), not with two (8.8%).
  o.noise_floor = 0.025;
  GateResult wide = judge({{"w", std::vector<double>(20, 100e-6), 100e-6}}, o);
  EXPECT_TRUE(wide.cases[0].blind);
  EXPECT_EQ(wide.cases[0].verdict, results::Verdict::unknown);
  EXPECT_EQ(wide.cases[0].reason, "blind: a change under 12% goes unseen (MDE)");
  second_look(wide, {}, {});
  EXPECT_NEAR(wide.cases[0].mde, std::exp(3.3707 * 0.025) - 1, 5e-4);
  EXPECT_FALSE(wide.cases[0].blind);
  EXPECT_EQ(wide.cases[0].verdict, results::Verdict::same); // it sees 8.8% now
}

// After a real step, the gate judges against the new level, not a window of two levels.
TEST(Gate, AStepInTheHistoryMakesTheNightsSinceItTheReference) {
  std::mt19937_64 random(5);
  auto history = nights(12, 0.01, random);
  for (double v : nights(8, 0.01, random))
    history.push_back(v * 1.2);
  // 10% over the new level: a candidate against the 8 nights since the change.
  GateResult r = judge({{"step", history, 132e-6}}, {});
  const GateCase& c = r.cases[0];
  EXPECT_EQ(c.change_nights, 8u);
  EXPECT_NEAR(c.change_ratio, 1.2, 0.02);
  EXPECT_EQ(c.nights, 8u);
  EXPECT_NEAR(c.baseline, 120e-6, 2e-6);
  EXPECT_TRUE(c.candidate);
  // The new level itself is no news.
  EXPECT_FALSE(judge({{"step", history, 120e-6}}, {}).cases[0].candidate);
  EXPECT_NEAR(c.ratio, 1.10, 0.02);
  // Without segmentation (a change needs more nights than the window has) the window mixes both
  // levels: tonight is judged against the old level, +32%, with a noise inflated by the step.
  GateOptions whole;
  whole.change_segment = 20;
  const GateCase mixed = judge({{"step", history, 132e-6}}, whole).cases[0];
  EXPECT_EQ(mixed.change_nights, 0u);
  EXPECT_EQ(mixed.nights, 20u);
  EXPECT_NEAR(mixed.ratio, 1.32, 0.03);
  EXPECT_GT(mixed.noise, 5 * c.noise);
  // One wild night is not a change: the whole window stays the reference.
  auto wild = nights(20, 0.01, random);
  wild[10] *= 2;
  const GateCase one = judge({{"wild", wild, 100e-6}}, {}).cases[0];
  EXPECT_EQ(one.change_nights, 0u);
  EXPECT_EQ(one.nights, 20u);
}

// Power and false alarms on synthetic log-normal nights with a fixed seed (the same method as
// bench_gate_replay on recorded runs).
// Log-normal nights of 1% noise, judged with tonight alone and with a second look (the same
// nights, the same seed): steps into tonight, its second look and the confirmation.
TEST(Gate, FalseAlarmsAndPowerOnSyntheticNoise) {
  std::mt19937_64 random(4);
  const double sigma = 0.01;
  struct Counts {
    std::size_t alerts = 0, candidates = 0, caught10 = 0, caught5 = 0;
  };
  Counts alone, looked;
  const std::size_t trials = 300, cases = 50;
  for (std::size_t t = 0; t < trials; ++t) {
    std::vector<GateInput> same;
    std::vector<std::string> ids;
    std::vector<double> again, looks;
    for (std::size_t i = 0; i < cases; ++i) {
      const auto history = nights(22, sigma, random);
      const std::string id = "c" + std::to_string(i);
      const std::vector<double> past(history.begin(), history.end() - 2);
      same.push_back({id, past, history[20]});
      looks.push_back(history[21]);
      ids.push_back(id);
      again.push_back(nights(1, sigma, random)[0]);
    }
    for (bool second : {false, true}) {
      Counts& counts = second ? looked : alone;
      for (double step : {1.0, 1.05, 1.10}) {
        std::vector<GateInput> stepped = same;
        std::vector<double> stepped_looks = looks, stepped_again = again;
        for (auto& in : stepped)
          *in.tonight *= step;
        for (auto& v : stepped_looks)
          v *= step;
        for (auto& v : stepped_again)
          v *= step;
        GateResult r = judge(stepped, {});
        if (second)
          second_look(r, ids, stepped_looks);
        if (step == 1.0)
          counts.candidates += r.candidates();
        confirm(r, ids, stepped_again);
        if (step == 1.0)
          counts.alerts +=
              r.count(results::Verdict::slower) + r.count(results::Verdict::faster) > 0 ? 1 : 0;
        if (step == 1.05)
          counts.caught5 += r.count(results::Verdict::slower);
        if (step == 1.10)
          counts.caught10 += r.count(results::Verdict::slower);
      }
    }
  }
  const double n = static_cast<double>(trials * cases);
  for (const Counts* c : {&alone, &looked}) {
    EXPECT_LT(static_cast<double>(c->candidates) / n, 0.01); // under 1% of cases are candidates
    EXPECT_LE(c->alerts * 20, trials);                       // at most 1 alert per 20 nights
    EXPECT_GE(static_cast<double>(c->caught10) / n, 0.95);   // 10% with noise 1%: caught
  }
  // 5% with noise 1% from tonight alone: measured 78.0% (issue #12's goal is 80%: the
  // beyond-the-window rule that keeps heavy-tailed cases quiet costs a little power here).
  EXPECT_GE(static_cast<double>(alone.caught5) / n, 0.75);
  // With a second look: a 5% step is 6.6 sd of the mean of two values, and a chance candidate
  // must pass twice. Measured: 94.5% of 5% steps caught, 2 candidates in 15000 case-nights
  // against 11.
  EXPECT_GE(static_cast<double>(looked.caught5) / n, 0.92);
  EXPECT_LT(looked.candidates * 2, alone.candidates);
}

} // namespace
} // namespace opbench::gate
