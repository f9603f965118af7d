#pragma once
// Everything that decides how a run measures and where it writes, with its default: the one
// place these defaults are written (`opbench run --help` shows them; docs/reproducibility.md says
// why each is what it is). The CLI binds its flags to these fields; the run (run.hpp), its loop
// (run_loop.hpp) and its fresh processes (child_runs.hpp) read them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/measure/options.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::run {

// `run --bandwidth-tolerance`'s default (RunSettings::bandwidth_tolerance); the band the summary
// tells the usual memory bandwidth in when the run sets nothing aside.
inline constexpr double k_default_bandwidth_tolerance = 0.20;

struct RunSettings {
  measure::ExecOptions exec; // how one repetition is measured (measure/loop.hpp's stopping rule)
  std::uint64_t seed = 0;    // inputs (recorded per case) and the interleaved order
  int repetitions = 6;       // per case, each with fresh inputs at another placement
  int processes = 3;         // fresh processes the repetitions are split over, one after another
  // Stop when known (docs/measuring.md, "Stopping when the number is known"): after
  // `min_processes` processes, a case whose interval (results::interval_of) is within
  // +-interval_target is done, and the later processes measure only the cases still open;
  // interval_target 0: every case in every process.
  double interval_target = 0.03;
  int min_processes = 2;
  // [s] a measuring process first measures its first job this long (one repetition at least)
  // and drops it: a fresh process runs small cases slow for a while
  double process_warmup = 0.3;
  bool interleave = true;       // (case, repetition) pairs in a seeded random order
  bool isolate = false;         // every repetition in a fresh process of its own
  int retries = 2;              // per repetition measured while the machine was slow
  double slow_tolerance = 0.10; // speed-canary slowdown past which a repetition counts as slow
  // Memory-bound CPU cases: a repetition whose memory canary was further than this from the usual
  // bandwidth is measured again, then set aside (results::set_aside_unusual_bandwidth); 0: neither
  double bandwidth_tolerance = k_default_bandwidth_tolerance;
  // CUDA devices: the run's first process locks their SM clocks at the base clock through NVML
  // for the run (machine/device_state.hpp), saying in the context when the driver refuses.
  bool lock_clocks = false;
  std::string estimator = results::k_default_estimator; // results/estimate.hpp
  std::string host_allocator = "tuned";                 // machine/host_allocator.hpp
  std::string trace_dir;          // a profiler trace of each case (first repetition) here; "": none
  std::string peaks;              // calibrated peaks for % of peak; "": cost::default_peaks_path()
  std::string log_level = "warn"; // what the run's fresh processes log
  // The operator libraries this run loaded (absolute paths): its measuring processes load them
  // too (`run --from` loads none by itself).
  std::vector<std::string> libraries;

  // [s] how long a measuring process may hold one repetition of a case (its phases but a stage's
  // compile) before its supervisor kills it and calls the case `timeout` (child_runs.hpp); 0: the
  // default, case_timeout_seconds()
  double case_timeout = 0;

  // A process started by a run (child_runs.hpp) to measure part of it:
  int placement = 0;         // placement index of its first repetition
  int run_repetitions = 0;   // the whole run's repetitions of a case (0: `repetitions`)
  std::string process_label; // "K/P" in a child of --processes: its progress lines say so
  // Where it says what it holds (measure/holding.hpp); set in every measuring process a run starts,
  // "" in the run the user started, which then supervises the processes that measure.
  std::string hold_file;
  // A process started again after one that died: the repetitions already kept and the cases
  // left out (processes.hpp's Resume, as a JSON file); "": none.
  std::string resume_file;
  // What the earlier processes of the run found of each case (run_loop.hpp's Calibrations, as a
  // JSON file); "": none.
  std::string calibration_file;
};

// --case-timeout's default: at least k_case_timeout_floor, and k_case_timeout_per_max_time times
// --max-time (a repetition times its blocks for about --max-time; its inputs, warmup, checks and
// probes are a few calls more). A stage's compile may take k_compile_timeout on its own.
inline constexpr double k_case_timeout_floor = 60;         // [s]
inline constexpr double k_case_timeout_per_max_time = 100; // x --max-time
inline constexpr double k_compile_timeout = 1800;          // [s]
// The limit a repetition of a case runs under: --case-timeout, else the default above.
double case_timeout_seconds(const RunSettings& settings);

// The range a numeric setting may take, both ends included. The CLI's checks and check() read
// these constants and no other (docs/hostile-input.md): a value outside, NaN, an infinity or text
// is refused, naming the option and its range, before anything runs.
struct Range {
  double low;
  double high;
  bool integer; // a whole number
};
namespace limits {
inline constexpr Range warmup{0, 1e6, true};               // calls
inline constexpr Range runs{1, 1e6, true};                 // blocks
inline constexpr Range min_time{0, 3600, false};           // [s]
inline constexpr Range max_time{0, 86400, false};          // [s]
inline constexpr Range target_noise{0, 1, false};          // cv
inline constexpr Range warm_tolerance{0, 1, false};        // relative; 0: never
inline constexpr Range block_time{1e-6, 60, false};        // [s]
inline constexpr Range repetitions{1, 10000, true};        //
inline constexpr Range processes{1, 1000, true};           //
inline constexpr Range interval_target{0, 10, false};      // relative half-width; 0: never
inline constexpr Range placement{0, 1e6, true};            //
inline constexpr Range process_warmup{0, 3600, false};     // [s]
inline constexpr Range retries{0, 100, true};              //
inline constexpr Range slow_tolerance{1e-6, 100, false};   // relative
inline constexpr Range bandwidth_tolerance{0, 100, false}; // relative; 0: never
inline constexpr Range case_timeout{0, 7 * 86400, false};  // [s]; 0: the default
// Intra-op threads of a case (0: LibTorch's default): past what any machine has, a case would
// start thousands of OS threads.
inline constexpr Range threads{0, 4096, true};
} // namespace limits

// Whether `value` lies in `range` (finite, whole when it must be).
bool in_range(double value, const Range& range);
// "a whole number from 1 to 10000" / "a number from 0 to 3600".
std::string describe(const Range& range);
// `text` (a command-line value) as a number in `range`: nullopt for text that is not all one
// number (strtod's forms, blanks around it allowed), NaN, an infinity, an overflow, or a value
// outside the range. The CLI's checks are this.
std::optional<double> parse_in_range(const std::string& text, const Range& range);
// `text` as a seed: digits only, 0 to 2^64-1 (not -1, 1e23 or 2^64, which a parser would wrap
// or round); nullopt otherwise.
std::optional<std::uint64_t> parse_seed(const std::string& text);

// Throws UsageError naming the option and its range when a setting is out of it.
void check(const RunSettings& settings);

// How the run measured, as its result's context records it ("measuring"): every setting that
// changes what a case's numbers mean. Results whose records differ are not merged
// (results::measuring_differences). `processes`: the measuring processes the repetitions were
// split over (fewer than --processes when there are fewer repetitions; one per repetition with
// --isolate).
Json measuring_json(const RunSettings& settings, int processes);

// A run's expected wall clock [s] before it starts, for the plan line: each repetition of each case
// costs about k_repetition_fixed (warmup, calibration, inputs, canaries, probes) plus its timed
// blocks, at least --min-time and on average k_timed_share of --max-time (most repetitions stop at
// --target-noise or --runs before --max-time); plus k_process_start per fresh process
// (--processes, 1 included; --isolate). Fitted on the default suite's runs at --max-time 0.03 and
// 0.04 (43 and 48 ms a repetition, docs/reproducibility-log.md, "Repetitions of 0.03 s"). Cases
// whose calls alone outlast --max-time (min_runs of them), stages and compiling take longer: an
// estimate, said as one.
inline constexpr double k_repetition_fixed = 0.029; // [s]
inline constexpr double k_timed_share = 0.47;
inline constexpr double k_process_start = 1.5; // [s] LibTorch loaded, the plan bound again
double estimated_seconds(std::size_t cases, const RunSettings& settings);
// The same for a run whose every case is done after --min-processes (the least it can take when
// --interval-target stops cases early); estimated_seconds when nothing stops early.
double estimated_seconds_at_least(std::size_t cases, const RunSettings& settings);
// The processes every case is measured in before --interval-target may stop it: --min-processes,
// or all of them when --interval-target is 0 (and never more than the shares there are).
int processes_before_stopping(const RunSettings& settings, int shares);

// The flags that make another opbench process measure as `settings` say (--warmup, --runs,
// --min-time, --max-time, --target-noise, --block-time, --warm-tolerance, --host-allocator,
// --timer, --estimator,
// --process-warmup, --cold) and load its libraries (`run --from` loads none by itself): the
// measuring children of a run, and the sides of `opbench ab`.
std::vector<std::string> measuring_args(const RunSettings& settings);

} // namespace opbench::run
