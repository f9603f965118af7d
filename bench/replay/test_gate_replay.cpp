#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "opbench/core/json.hpp"
#include "replay/gate_replay.hpp"

namespace opbench::replay {
namespace {

// tests/data/gate/recorded-aa.json: real repetition medians of 62 cases from two runs of the
// default suite on the development machine (its "about" says how they were taken).
RecordedProcesses recorded() {
  std::ifstream in(std::string(OPBENCH_TEST_DATA) + "/gate/recorded-aa.json");
  const Json json = Json::parse(in);
  RecordedProcesses runs;
  for (const auto& [id, per_run] : json["cases"].items())
    runs[id] = per_run.get<std::vector<std::vector<double>>>();
  return runs;
}

// The gate on recorded noise with injected steps (the Hunter paper's method), a fixed seed.
TEST(GateReplay, RecordedNoiseFalseAlarmsAndPower) {
  ReplayOptions options;
  options.trials = 100;
  options.seed = 11;
  options.estimator = "median"; // the figures below were measured with the median
  const ReplayResult r = replay(recorded(), options);
  ASSERT_EQ(r.cases, 62u);
  // Identical code: at most 1 night in 20 with a final alert (issue #12's goal: met).
  EXPECT_LE(r.alert_nights * 20, r.trials) << r.alert_nights;
  // Candidates: measured 1.3% of cases a night on this noise (the goal, 1%, is missed: these
  // cases' nights have heavy tails); confirmation keeps them from becoming alerts.
  EXPECT_LT(static_cast<double>(r.candidates) / static_cast<double>(r.trials * r.cases), 0.02);
  // Steps into tonight and its confirmation, on the cases whose gate noise is <= 2%: measured
  // 81% of 10% steps and 60% of 5% steps caught (goals 95% and 80%: not met on this machine's
  // noise; see docs/nightly.md). These bounds keep the gate from getting blinder unseen.
  ASSERT_EQ(r.power.size(), 2u);
  const StepPower& five = r.power[0];
  const StepPower& ten = r.power[1];
  ASSERT_GT(ten.tried_2, 0u);
  EXPECT_GE(static_cast<double>(ten.caught_2) / static_cast<double>(ten.tried_2), 0.75);
  EXPECT_GE(static_cast<double>(five.caught_2) / static_cast<double>(five.tried_2), 0.50);
}

// The same recordings with the minimum of the repetition medians, run's default estimator:
// measured 0 alerts in 100 trials, 0.35% candidates a night, 98% of 10% steps and 84% of 5% steps
// caught on the cases whose gate noise is <= 2%: issue #12's goals (at most 1 alert in 20
// nights, 1% candidates, 95% and 80% power), met on this noise.
TEST(GateReplay, TheMinimumEstimatorMeetsTheGoalsOnTheSameNoise) {
  ReplayOptions options;
  options.trials = 100;
  options.seed = 11;
  options.estimator = "min";
  const ReplayResult r = replay(recorded(), options);
  ASSERT_EQ(r.cases, 62u);
  EXPECT_LE(r.alert_nights * 20, r.trials) << r.alert_nights;
  EXPECT_LE(static_cast<double>(r.candidates) / static_cast<double>(r.trials * r.cases), 0.01);
  const StepPower& five = r.power[0];
  const StepPower& ten = r.power[1];
  ASSERT_GT(ten.tried_2, 0u);
  EXPECT_GE(static_cast<double>(ten.caught_2) / static_cast<double>(ten.tried_2), 0.95);
  EXPECT_GE(static_cast<double>(five.caught_2) / static_cast<double>(five.tried_2), 0.80);
}

// The same recordings with run's default estimator, the mean of the fastest third of the
// repetition medians: measured 1 alert night in 100 trials, 0.31% candidates a night, 95.6% of
// 10% steps and 86.1% of 5% steps caught on the cases whose gate noise is <= 2% (the minimum: 0,
// 0.35%, 98%, 84%): the same goals met.
TEST(GateReplay, TheDefaultEstimatorMeetsTheGoalsOnTheSameNoise) {
  ReplayOptions options;
  options.trials = 100;
  options.seed = 11;
  ASSERT_EQ(options.estimator, "fastest-third");
  const ReplayResult r = replay(recorded(), options);
  ASSERT_EQ(r.cases, 62u);
  const StepPower& five = r.power[0];
  const StepPower& ten = r.power[1];
  ASSERT_GT(ten.tried_2, 0u);
  const std::string figures =
      "alert nights " + std::to_string(r.alert_nights) + " of " + std::to_string(r.trials) +
      ", candidates " + std::to_string(r.candidates) + ", +10% " + std::to_string(ten.caught_2) +
      "/" + std::to_string(ten.tried_2) + ", +5% " + std::to_string(five.caught_2) + "/" +
      std::to_string(five.tried_2);
  EXPECT_LE(r.alert_nights * 20, r.trials) << figures;
  EXPECT_LE(static_cast<double>(r.candidates) / static_cast<double>(r.trials * r.cases), 0.01)
      << figures;
  EXPECT_GE(static_cast<double>(ten.caught_2) / static_cast<double>(ten.tried_2), 0.95) << figures;
  EXPECT_GE(static_cast<double>(five.caught_2) / static_cast<double>(five.tried_2), 0.80)
      << figures;
}

// A recorded run is split into the processes that measured it, as its context says: run's
// children in order (the first taking the rest), --isolate's one a repetition, one process
// otherwise, and one when a child died and the shares can no longer be told apart.
TEST(GateReplay, ARecordedRunIsSplitIntoTheProcessesThatMeasuredIt) {
  const std::vector<double> seven = {1, 2, 3, 4, 5, 6, 7};
  using Processes = std::vector<std::vector<double>>;
  EXPECT_EQ(recorded_processes(Json{{"processes", 2}, {"repetitions", 7}}, seven),
            (Processes{{1, 2, 3, 4}, {5, 6, 7}}));
  EXPECT_EQ(recorded_processes(Json{{"processes", 3}, {"repetitions", 7}}, seven),
            (Processes{{1, 2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(recorded_processes(Json{{"processes", 1}, {"repetitions", 7}}, seven),
            (Processes{seven}));
  EXPECT_EQ(recorded_processes(Json{{"repetitions", 7}}, seven),
            (Processes{seven})); // before --processes
  EXPECT_EQ(recorded_processes(Json{{"isolate", true}, {"repetitions", 3}}, {1, 2, 3}),
            (Processes{{1}, {2}, {3}}));
  EXPECT_EQ(recorded_processes(Json{{"processes", 2}, {"repetitions", 8}}, seven),
            (Processes{seven}));
  EXPECT_TRUE(recorded_processes(Json{{"processes", 2}, {"repetitions", 6}}, std::vector<double>{})
                  .empty());
}

// Repetitions set aside for an unusual memory bandwidth keep their places: the others stay in the
// processes that measured them, and a process left with none is not counted.
TEST(GateReplay, RepetitionsSetAsideLeaveTheOthersInTheirProcesses) {
  using Processes = std::vector<std::vector<double>>;
  const Json context{{"processes", 3}, {"repetitions", 6}};
  results::TimingInfo timing;
  timing.repetition_medians = {1, 3, 4, 6};
  timing.set_aside = {{2.0, {50e9, 50e9}, 1}, {5.0, {50e9, 50e9}, 4}};
  EXPECT_EQ(recorded_processes(context, timing), (Processes{{1}, {3, 4}, {6}}));
  timing.repetition_medians = {1, 2, 5, 6};
  timing.set_aside = {{3.0, {50e9, 50e9}, 2}, {4.0, {50e9, 50e9}, 3}};
  EXPECT_EQ(recorded_processes(context, timing), (Processes{{1, 2}, {5, 6}}));
  // Without any set aside, as before; places that do not fit: one process.
  timing.set_aside.clear();
  EXPECT_EQ(recorded_processes(context, timing).size(),
            1u); // 4 of 6 and none set aside: a child died
  timing.repetition_medians = {1, 2, 3, 4, 5};
  timing.set_aside = {{6.0, {50e9, 50e9}, 9}};
  EXPECT_EQ(recorded_processes(context, timing), (Processes{{1, 2, 3, 4, 5}}));
}

// A night's processes come from distinct recorded processes: with one fast and one slow recorded
// process, every night of two processes holds the fast one, so with the minimum every night is
// the same and the gate's noise is its floor. (Drawn with replacement, a quarter of the nights
// would be the slow process twice.)
TEST(GateReplay, ANightsProcessesAreDistinctRecordedProcesses) {
  RecordedProcesses runs;
  runs["two modes"] = {{1.0, 1.0}, {2.0, 2.0}};
  ReplayOptions options;
  options.trials = 20;
  options.seed = 5;
  options.steps = {};
  options.processes = 2;
  options.repetitions = 4;
  const ReplayResult r = replay(runs, options);
  ASSERT_EQ(r.noise.size(), 1u);
  EXPECT_DOUBLE_EQ(r.noise[0], options.gate.noise_floor);
  EXPECT_EQ(r.candidates, 0u);
  // Its between-process spread sees both modes: 1.4826 MAD of log 1 and log 2.
  ASSERT_EQ(r.process_spread.size(), 1u);
  EXPECT_NEAR(r.process_spread[0], 1.4826 * 0.5 * std::log(2.0), 1e-9);
}

// A night of several processes (run --processes) samples what differs between processes: a case
// that runs 2x slower in one recorded process out of four is a bimodal night when a night is one
// process, and nearly always the fast mode when the fastest of three processes' repetitions counts.
TEST(GateReplay, ANightOfSeveralProcessesAveragesAProcessesSlowMode) {
  RecordedProcesses runs;
  runs["bimodal"] = {
      {1.00, 1.01, 1.02}, {1.01, 1.00, 1.02}, {1.02, 1.01, 1.00}, {2.00, 2.02, 2.01}};
  runs["steady"] = {{1.00, 1.01, 1.02}, {1.01, 1.00, 1.02}, {1.02, 1.01, 1.00}, {1.00, 1.02, 1.01}};
  ReplayOptions one;
  one.trials = 20;
  one.seed = 3;
  one.steps = {};
  ReplayOptions three = one;
  three.processes = 3;
  three.repetitions = 3;
  const ReplayResult a = replay(runs, one);
  const ReplayResult b = replay(runs, three);
  ASSERT_EQ(a.noise.size(), 2u); // the cases in id order: bimodal, steady
  EXPECT_GT(a.noise[0], 0.1);    // a quarter of the nights 2x slower
  EXPECT_LT(b.noise[0], 0.02);   // a night is slow only when all three processes are (1 in 64)
  EXPECT_LT(b.noise[1], 0.02);
}

// The A/B confirmation (nightly.sh with the previous build: `opbench ab` of the candidates, 20
// rounds): both sides draw the same noise on identical code, so the paired test at the
// confirmation's level keeps the final alerts at or under 1 night in 20 however heavy the tails;
// real steps still pass it. Measured: 0 alerts in 100 trials, 95.3% of 10% steps and 88.3% of 5%
// steps caught (docs/nightly-log.md, 2026-11-28).
TEST(GateReplay, AnABConfirmationKeepsFalseAlarmsAtItsLevel) {
  ReplayOptions options;
  options.trials = 100;
  options.seed = 11;
  options.ab_rounds = 20;
  const ReplayResult r = replay(recorded(), options);
  ASSERT_EQ(r.cases, 62u);
  EXPECT_LE(r.alert_nights * 20, r.trials) << r.alert_nights;
  std::size_t alerts = 0;
  for (const auto& [what, trials] : r.false_alerts)
    alerts += trials;
  EXPECT_GE(alerts, r.alert_nights); // every alert night names its cases
  const StepPower& ten = r.power[1];
  ASSERT_GT(ten.tried_2, 0u);
  EXPECT_GE(static_cast<double>(ten.caught_2) / static_cast<double>(ten.tried_2), 0.95);
  const StepPower& five = r.power[0];
  EXPECT_GE(static_cast<double>(five.caught_2) / static_cast<double>(five.tried_2), 0.85);
}

// The second look (nightly.sh's default) against tonight's value alone, on the same recorded
// noise and the same draws (the second look is drawn either way): fewer candidates, more of the
// 5% steps caught, no more false alerts; the second looks are the cases tonight put under 5%.
// Measured (A/B confirmation of 20 rounds): 3.52 second looks a night (5.7% of the cases);
// candidates 38 -> 23 in 100 nights; 5% steps caught 82.6% -> 88.3%, 10% steps 95.0% -> 95.3%;
// no alert either way.
TEST(GateReplay, ASecondLookLowersCandidatesAndRaisesPower) {
  ReplayOptions looked;
  looked.trials = 100;
  looked.seed = 11;
  looked.ab_rounds = 20;
  ASSERT_TRUE(looked.second_look);
  ReplayOptions alone = looked;
  alone.second_look = false;
  const ReplayResult a = replay(recorded(), alone);
  const ReplayResult b = replay(recorded(), looked);
  ASSERT_EQ(b.cases, 62u);
  EXPECT_EQ(a.second_looks, b.second_looks); // the same first judgement
  const double looks =
      static_cast<double>(b.second_looks) / static_cast<double>(b.trials * b.cases);
  EXPECT_GT(looks, 0.01);
  EXPECT_LT(looks, 0.10);
  EXPECT_LT(b.candidates, a.candidates) << b.candidates << " against " << a.candidates;
  EXPECT_LE(b.max_candidates, a.max_candidates);
  EXPECT_LE(b.nights_over_1pct, a.nights_over_1pct);
  EXPECT_LE(b.alert_nights * 20, b.trials) << b.alert_nights;
  auto caught = [](const StepPower& p) {
    return static_cast<double>(p.caught_2) / static_cast<double>(p.tried_2);
  };
  EXPECT_GT(caught(b.power[0]), caught(a.power[0]) + 0.03); // +5%
  EXPECT_GE(caught(b.power[1]), caught(a.power[1]));        // +10%
}

} // namespace
} // namespace opbench::replay
