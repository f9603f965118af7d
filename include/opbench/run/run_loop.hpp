#pragma once
// The measuring loop of one process (`run` without --processes, and each child of --processes):
// every (case, repetition) job in the Schedule's order; each repetition judged by its canaries
// (SpeedGate, BandwidthReadings) and measured again later when the machine was slow or, for a
// memory-bound case, streamed at a bandwidth off the usual one; the process's first job measured
// for a while and dropped first (the process warm-up); a case's repetitions combined into its
// result once they are all in. What measures a repetition is the caller's (exec::run_case, or a
// fresh process for --isolate), so the loop itself needs no LibTorch and is tested with fakes.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/measure/options.hpp"
#include "opbench/results/case.hpp"
#include "opbench/results/result_set.hpp"
#include "opbench/run/schedule.hpp"
#include "opbench/run/settings.hpp"

namespace opbench::run {

// The slow spells a run met: repetitions measured again (speed canary), and the fastest canary
// per thread count; with --processes, over all its processes.
struct SlowSpells {
  std::size_t measured_again = 0;
  std::size_t repetitions = 0;
  std::map<int, double> fastest_canary;
  double time_retried = 0;        // [s] everything of the repetitions measured again
  double time_process_warmup = 0; // [s] the process's first, dropped repetitions (--process-warmup)
  std::size_t unstable_measured_again =
      0; // repetitions measured again for disagreeing (is_unstable)
  // CUDA repetitions measured again because the device ran slowed (DeviceClockGate), kept though
  // slowed once the retries were spent, and the highest SM clock per device [MHz].
  std::size_t device_measured_again = 0;
  std::size_t device_slowed_kept = 0;
  std::map<std::string, double> highest_sm_clock;
  BandwidthReadings bandwidth;
};

// The run summary's `slow_spells` (`tolerance`: --slow-tolerance); processes.hpp reads a
// process's back into the run's.
Json slow_spells_json(const SlowSpells& slow, double tolerance);
// The console's line on the repetitions measured again and why ("12 of 582 repetitions were
// measured again: 10 ran while the machine was over 10% slow (speed canary), ...").
std::string describe_measured_again(const SlowSpells& slow, double tolerance);

// By case id, what a case's kept repetitions found: their block size and fastest time per call.
using Calibrations = std::map<std::string, measure::Calibration>;
// Adds a kept repetition's calibration to `into` (its block size; the faster time per call); a
// repetition that is not ok, or has no block size or median, adds nothing.
void learn_calibration(Calibrations& into, const results::CaseResult& repetition);
Json to_json(const Calibrations& calibration);
// Throws ResultsError naming `where` on a malformed record.
Calibrations calibrations_from_json(const Json& json, const std::string& where);

// What one process's loop does, made from the run's settings (loop_options) and this
// process's part in the run.
struct LoopOptions {
  int repetitions = 0;
  bool interleave = false;
  std::uint64_t order_seed = 0; // the Schedule's shuffle
  int retries = 0;              // per repetition (Schedule)
  double slow_tolerance = 0;    // SpeedGate
  double bandwidth_tolerance = 0;
  // Seconds the process's first job is measured and dropped before anything is kept (at least one
  // repetition); 0: none (an --isolate parent, whose processes each warm up).
  double process_warmup = 0;
  // Set aside the repetitions off the usual memory bandwidth when a case is done; false in a
  // child of --processes, whose parent decides on the whole run's readings.
  bool set_aside_here = true;
  std::string estimator;
  // Where this process's repetitions lie among the run's (a child of --processes measures a share
  // of them): a repetition that fails is named "repetition K of N" among the run's.
  int first_placement = 0;
  int run_repetitions = 0;
  // Per case (by index; shorter: none), the repetitions a process that died kept already
  // (processes.hpp's Resume): not measured again, and the case is done without them.
  std::vector<std::set<int>> done;
  // By case id, what earlier processes of the run found (processes.hpp hands it on): a CPU case's
  // repetitions start from it, and from what this process's own repetitions of the case find
  // (measure::MeasureOptions::known).
  Calibrations calibration;
};

// The loop of this process of a run: the settings' values; its own shuffle (a child of
// --processes meets the cases in an order of its own, its inputs keep the cases' seeds); no
// warm-up of its own in an --isolate parent; the set-aside left to a --processes parent.
LoopOptions loop_options(const RunSettings& settings);

struct LoopCallbacks {
  // The options one job is measured with (its repetition, placement, memory probe, trace).
  std::function<measure::ExecOptions(const results::Case&, const Job&)> options_for;
  // Measures one repetition.
  std::function<results::CaseResult(const results::Case&, const measure::ExecOptions&)> measure;
  // A kept repetition, as soon as it is in (the journal keeps it, should the run be killed; a
  // supervisor reads it there), its case's last one too, once it is not to be measured again.
  std::function<void(const results::CaseResult&, int repetition)> kept;
  // A case is over: its repetitions combined (or the one that failed or was skipped).
  std::function<void(results::CaseResult)> finish;
};

// Measures every case of `cases` `options.repetitions` times; returns what the run met.
SlowSpells run_loop(const std::vector<results::Case>& cases, const LoopOptions& options,
                    const LoopCallbacks& on);

} // namespace opbench::run
