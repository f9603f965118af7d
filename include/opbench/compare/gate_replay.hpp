#pragma once
// The nightly gate replayed on recorded noise (issue #12's method, after the Hunter paper:
// real noise, injected steps). Per case, the recorded runs of one suite on one machine (each run:
// the case's repetition medians). A simulated night of a case takes one recorded run at random
// (the differences between processes) and draws that run's repetition medians with replacement
// (the noise inside a run); its value is `estimator` over them, as `run` computes it. A trial is `nights`
// nights of history, tonight, and a confirmation as scripts/nightly.sh takes it (`run --isolate`:
// each repetition in a fresh process, so each repetition median from a recorded run drawn anew),
// judged with the gate.

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
  std::vector<double> noise;         // the gate's noise per case (first trial)
  std::vector<StepPower> power;
};

// Cases recorded in fewer runs than the most complete one are left out.
ReplayResult replay(const RecordedRuns& runs, const ReplayOptions& options);

}  // namespace opbench::compare
