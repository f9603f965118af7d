#pragma once
// The nightly gate replayed on recorded noise (issue #12's method, after the Hunter paper:
// real noise, injected steps). Per case, the recorded runs of one suite on one machine (each run:
// the case's repetition medians). A simulated night of a case takes one recorded run at random
// (the differences between processes) and draws that run's repetition medians with replacement
// (the noise inside a run); its value is `estimator` over them, as `run` computes it. With
// `processes` P > 1 a night is P such processes, its repetitions split between them (run
// --processes), and its value the estimator over all of them. A trial is `nights`
// nights of history, tonight, and a confirmation as scripts/nightly.sh takes it (`run --isolate`:
// each repetition in a fresh process, so each repetition median from a recorded run drawn anew),
// judged with the gate; or, with `ab_rounds`, an A/B confirmation against the previous build.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "opbench/compare/gate.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::compare {

// Per case id: per recorded run, its repetition medians [s].
using RecordedRuns = std::map<std::string, std::vector<std::vector<double>>>;

struct ReplayOptions {
  std::size_t nights = 20;
  std::size_t trials = 200;
  std::uint64_t seed = 1;
  std::vector<double> steps = {1.05, 1.10};  // slow-downs injected into tonight and its confirmation
  std::string estimator = results::k_default_estimator;  // a night's value from its repetition medians (run --estimator)
  // A night as `run --processes P --repetitions R` makes it: R repetition medians (0: as many as
  // a recorded run has), split over P processes, each process's from a recorded run of its own.
  std::size_t processes = 1;
  std::size_t repetitions = 0;
  // 0: the candidates are confirmed against the history (`run --isolate`: each of the night's
  // repetitions in a fresh process). K: A/B against the previous build, as scripts/nightly.sh
  // with OPBENCH_BASELINE_BIN: K rounds of 3 fresh processes of 3 repetitions a side (identical
  // code here, so both sides draw the same recorded noise; a step moves tonight's side only).
  std::size_t ab_rounds = 0;
  GateOptions gate;
};

struct StepPower {
  double step = 1;
  std::size_t tried_2 = 0, caught_2 = 0;  // case-nights whose gate noise is <= 2%
  std::size_t tried_1 = 0, caught_1 = 0;  // ... <= 1%
};

struct ReplayResult {
  std::size_t cases = 0;
  std::size_t trials = 0;
  std::size_t candidates = 0;        // summed over trials (identical code)
  std::size_t max_candidates = 0;    // the most in one trial
  std::size_t alert_nights = 0;      // trials with a confirmed change (identical code)
  std::map<std::string, std::size_t> false_alerts;  // "slower CASE" / "faster CASE": trials it was confirmed in (identical code)
  std::vector<double> noise;         // the gate's noise per case (first trial)
  std::vector<StepPower> power;
};

// Cases recorded in fewer runs than the most complete one are left out.
ReplayResult replay(const RecordedRuns& runs, const ReplayOptions& options);

}  // namespace opbench::compare
