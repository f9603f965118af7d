#pragma once
// The nightly gate replayed on recorded noise (issue #12's method, after the Hunter paper:
// real noise, injected steps). Per case, the processes that measured it in recorded runs of one
// suite on one machine (each process: its repetition medians; compare::recorded_processes splits a
// run). A simulated process draws its repetition medians with replacement from one recorded process
// (the noise inside a process); a night is `processes` of them, each from another recorded
// process (the differences between processes), its repetitions split between them as `run
// --processes` splits them, and its value `estimator` over all of them, as `run` computes it.
// A trial is `nights` nights of history, tonight, its second look (another night's draw) and a
// confirmation as scripts/nightly.sh takes it (`run --isolate`: each repetition in a fresh process,
// so each from another recorded process), judged with the gate; or, with `ab_rounds`, an A/B
// confirmation against the previous build.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "opbench/compare/compare.hpp" // recorded_processes
#include "opbench/core/json.hpp"
#include "opbench/gate/gate.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::replay {

using compare::recorded_processes;
using gate::GateInput;
using gate::GateOptions;
using gate::GateResult;

// Per case id: per recorded process, its repetition medians [s].
using RecordedProcesses = std::map<std::string, std::vector<std::vector<double>>>;

struct ReplayOptions {
  std::size_t nights = 20;
  std::size_t trials = 200;
  std::uint64_t seed = 1;
  std::vector<double> steps = {1.05, 1.10}; // slow-downs injected into tonight and its confirmation
  std::string estimator =
      results::k_default_estimator; // a night's value from its repetition medians (run --estimator)
  // A night as `run --processes P --repetitions R` makes it: R repetition medians (0: as many as
  // the first recorded process has), split over P processes, each from a recorded process of its
  // own.
  std::size_t processes = 1;
  std::size_t repetitions = 0;
  // 0: the candidates are confirmed against the history (`run --isolate`: each of the night's
  // repetitions in a fresh process). K: A/B against the previous build, as scripts/nightly.sh
  // with a previous build (`opbench ab` of the candidates): K rounds, each a fresh process of each
  // side with 2 repetitions, its fastest one's median the round's time (identical code here, so
  // both sides draw the same recorded noise; a step moves tonight's side only).
  std::size_t ab_rounds = 0;
  // The second look of scripts/nightly.sh: a case whose p is under gate.look_alpha tonight is
  // measured again as a night is (processes of its own) and judged on both values (second_look).
  bool second_look = true;
  GateOptions gate;
};

struct StepPower {
  double step = 1;
  std::size_t tried_2 = 0, caught_2 = 0; // case-nights whose gate noise is <= 2%
  std::size_t tried_1 = 0, caught_1 = 0; // ... <= 1%
  // Case-nights whose between-process spread is <= 2% (issue #12's population): the spread of
  // the case's recorded processes, each one value (`estimator` over its repetition medians),
  // measured as the gate measures noise (robust_log_sd). A night of P processes is steadier
  // than one process, so these cases' gate noise is mostly under 2%.
  std::size_t tried_spread_2 = 0, caught_spread_2 = 0;
};

struct ReplayResult {
  std::size_t cases = 0;
  std::size_t trials = 0;
  std::size_t candidates = 0;     // summed over trials (identical code)
  std::size_t max_candidates = 0; // the most in one trial
  std::size_t nights_over_1pct =
      0; // trials with candidates on more than 1% of the cases (issue #12: none)
  std::size_t second_looks = 0; // summed over trials (identical code): cases measured a second time
  std::size_t alert_nights = 0; // trials with a confirmed change (identical code)
  std::map<std::string, std::size_t>
      false_alerts; // "slower CASE" / "faster CASE": trials it was confirmed in (identical code)
  std::vector<double> noise; // the gate's noise per case (first trial)
  std::vector<double>
      process_spread; // per case: the between-process spread of its recordings (StepPower)
  std::vector<StepPower> power;
};

// Cases recorded in fewer runs than the most complete one are left out.
ReplayResult replay(const RecordedProcesses& runs, const ReplayOptions& options);

} // namespace opbench::replay
