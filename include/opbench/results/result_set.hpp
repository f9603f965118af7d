#pragma once
// What a run produces: its context and one result per case, raw samples kept.
// Times are seconds; memory is bytes. The JSON carries k_schema_version.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/plan/case.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::results {

inline constexpr int k_schema_version = 1;

// Exact allocation figures of one untimed call, from the allocation reporter.
struct MemoryStats {
  std::int64_t peak_bytes = 0;   // highest live bytes above the level before the call
  std::int64_t total_bytes = 0;  // sum of every allocation's size
  std::int64_t allocations = 0;  // number of allocations
  // CUDA only: the caching allocator's own peaks (reset before the probe; inputs included).
  std::optional<std::int64_t> device_peak_allocated_bytes;
  std::optional<std::int64_t> device_peak_reserved_bytes;
};

// Where a case's wall-clock time went besides its timed blocks (TimingInfo::total_time), in
// seconds, summed over its kept repetitions; a run's summary adds them up (`time_spent`).
struct TimeSpent {
  double inputs = 0;     // making the inputs (every repetition makes its own)
  double recording = 0;  // the untimed call under the ATen-call recorder (the first repetition;
                         // every one on CUDA, where it decides whether a graph can hold the call)
  double warmup = 0;     // warmup and block-size calibration calls
  double retaken = 0;    // timed blocks dropped because the process was interrupted in them
  double canary = 0;     // the speed canary before and after the timing
  double probes = 0;     // the memory probe and the trace (the first repetition)
  double total() const { return inputs + recording + warmup + retaken + canary + probes; }
  TimeSpent& operator+=(const TimeSpent& other);
};

// How the samples were taken.
struct TimingInfo {
  std::string timer;                // "steady_clock", "cuda_event" or "host_sync"
  std::string mode = "hot";         // "hot", or "cold" (cache overwritten before each call)
  std::string call_path = "boxed";  // "typed" (unboxed fast path) or "boxed" (see typed_call.hpp)
  std::string cuda_graph = "off";   // "off", "on (K calls per replay)" or "fallback: why"
  // What `samples` and the estimate time. "host": the host clock around back-to-back calls (CPU
  // cases). On CUDA: "gpu", the device's execution per call with launch overhead hidden (CUDA-
  // graph replays of many calls, timed with events); "batch", back-to-back eager launches timed
  // with events, where no graph could be captured (`cuda_graph` says why; a call that launches
  // slower than the device runs it shows its launch time here); "cpu", the host's time per call,
  // for calls that launch no device work (views, metadata); "host_sync" with --timer host.
  std::string measures = "host";
  // The arguments put back to their made values before every timed call (an in-place operator's
  // written inputs: exec's Workload::restore); empty when the call writes none it reads, and in
  // files from before 2026-11-25, whose in-place cases ran on what earlier calls left.
  std::vector<std::string> restored;
  // CUDA cases, one value per repetition (seconds per call): the host's time in one call (its
  // launches and host work, the device drained before each block: what eager mode costs the
  // host), and back-to-back eager calls timed with CUDA events (what an eager loop sustains).
  std::vector<double> cpu_times;
  std::vector<double> batch_times;
  std::int64_t block_size = 0;      // calls per timed block
  std::int64_t warmup_calls = 0;    // calls before the first timed block (calibration included)
  double total_time = 0;            // seconds spent in timed blocks
  double target_noise = 0;          // relative noise (cv) the run aimed for
  double noise = 0;                 // relative noise reached (cv of the samples)
  bool noise_reached = false;       // noise <= target_noise
  std::vector<double> repetition_medians;  // one median per repetition (--repetitions)
  std::int64_t discarded_blocks = 0;       // blocks taken again: the process was interrupted
  std::int64_t placement_padding = 0;      // bytes allocated before the inputs (first repetition)
  double canary = 0;  // [s] the speed canary around the timing (exec/canary.hpp), slower of the
                      // one before and the one after; the slowest over kept repetitions; 0: none
  std::int64_t retried_repetitions = 0;    // repetitions measured again: the machine was slow
  // Memory-bound CPU cases (exec/canary.hpp's memory_bound_bytes): the
  // memory canary's bandwidth [bytes/s] before and after each repetition, in the order of
  // repetition_medians; empty for other cases.
  std::vector<std::array<double, 2>> repetition_bandwidth;
  // Repetitions measured while the host gave an unusual memory bandwidth for the run (either
  // reading not within --bandwidth-tolerance of usual_bandwidth): kept here, out of
  // repetition_medians and so out of the estimate (set_aside_unusual_bandwidth).
  struct SetAside {
    double median = 0;
    std::array<double, 2> bandwidth{};
    std::size_t repetition = 0;  // its place among all the case's repetitions (0-based), set aside or not
  };
  std::vector<SetAside> set_aside;
  double usual_bandwidth = 0;  // [bytes/s] the run's usual memory canary at the case's threads; 0: none
  TimeSpent spent;
};

// The work of one call and the rates it ran at (see cost/cost.hpp for the rules); absent
// values are unknown, never guessed.
struct WorkInfo {
  std::optional<double> flops;             // FLOPs of one call
  std::optional<double> bytes;             // bytes moved by one call, a lower bound
  std::string flops_rule;                  // the rule that gave `flops`
  std::optional<double> flops_per_second;  // flops / median
  std::optional<double> bytes_per_second;  // bytes / median
  std::optional<double> intensity;         // flops / bytes
  std::string bound;                       // "memory" or "compute", against calibrated peaks
  std::optional<double> percent_of_peak;   // of the bound's peak
  std::string peaks;                       // which calibrated peaks: "cpu/float32/t2"
  std::optional<std::int64_t> aten_calls;  // top-level ATen calls of one invocation
};

// How a stage other than eager ran the case (exec/stages.hpp) and why its time differs: the
// compiler path, what the optimized graph holds, and the check of its outputs against eager.
struct StageInfo {
  // "torchscript" (graph executor, fusion off), "torchscript+onednn_graph" or
  // "torchscript+tensorexpr" (with that fuser), "cuda_graph" (one graph replay per call).
  std::string runner;
  std::optional<std::int64_t> graph_ops;      // operator nodes the executed graph runs outside fusion groups
  std::optional<std::int64_t> fusion_groups;  // fused kernels (groups) in the executed graph
  std::optional<std::int64_t> fused_ops;      // operator nodes inside those groups
  // Worst |stage - eager| / (atol + rtol * max|eager|) over every output element (<= 1 passes;
  // exec/output_check.hpp); 0 when the outputs are identical.
  double check = 0;
  std::string tolerance;  // "|d| <= 1e-05 + 0.0001 * max|eager|" (float32), "exact" (integers, bool)
  std::string note;       // anything the reader should know (e.g. host-read inputs baked in)
};

// How a case's time is made from its repetition medians (run --estimator; recorded per result).
//  - "fastest-third": the mean of the fastest third of the repetition medians (2 of the default
//    6; the fastest alone when there are fewer than 6), the default since 2026-11-25. On a shared
//    machine interference only ever adds time (another tenant, an interrupt, a cold page), so the
//    fastest repetitions are the ones that repeat from process to process; the mean of the
//    fastest few leans less on one lucky placement than the fastest alone. On the A/As of
//    2026-11-25 (bench/estimators.py results/aa-stop35-final results/aa-stop36
//    results/aa-stop35-pinned, 7 pairs) its p90 |run2/run1 - 1| was lower than the minimum's in
//    every pair (3.2-9.8% against 3.6-10.3%) and its median in 6 of 7, with as few cases past
//    x1.25; replaying the nightly gate on those runs' 18 processes (bench_gate_replay) its gate
//    noise was 2.05% against 2.21%, with fewer alert nights and as many steps caught.
//  - "min": the fastest repetition's median, the default before: the minimum BenchmarkTools.jl
//    judges regressions on (Chen and Revels, "Robust benchmarking in noisy environments", 2016).
//    On ten earlier A/A recordings of the default suite it repeated better than the median
//    (median |run2/run1 - 1| 0.9-3.8% against 1.2-8.2%, p90 4.8-26% against 8.2-42%).
//  - "median": the median of the repetition medians, the typical repetition.
inline constexpr const char* k_default_estimator = "fastest-third";
const std::vector<std::string>& estimator_names();
// `estimator` over `repetition_medians`; NaN when there is none. Throws Error on an unknown name.
double estimate_with(const std::string& estimator, const std::vector<double>& repetition_medians);

// The case's time and how sure it is across repetitions (each one fresh inputs at another
// placement, at another moment, in one of the run's processes (--processes) or in a process of its
// own (--isolate)): `time`, the estimator over
// the repetition medians, which compare, the gate, the history, the roofline and every report use
// as the case's time; the median of the repetition medians with a distribution-free interval of it
// (stats::median_interval, 95% asked; the default 6 repetitions give [min, max] at 96.9%, 7 at
// 98.4%, 5 at 93.75%), and the relative spread of the repetition medians.
struct Estimate {
  std::string estimator = k_default_estimator;
  double time = 0;      // seconds: `estimator` over the repetition medians; NaN when no repetition
  std::size_t repetitions = 0;
  double median = 0;    // seconds: the median of the repetition medians
  double low = 0;       // interval of `median` [s]
  double high = 0;
  double coverage = 0;  // exact coverage of [low, high]; 0 with one repetition
  double spread = 0;    // (max - min) / median of the repetition medians
};

// The estimate from one median per repetition.
Estimate estimate_of(const std::vector<double>& repetition_medians,
                     const std::string& estimator = k_default_estimator);

struct CaseResult {
  plan::Case c;
  std::string status = "ok";  // "ok", "error" or "skipped"
  std::string message;        // why, when not ok
  Estimate estimate;          // the case's time across repetitions
  stats::Summary summary;     // of `samples` (all repetitions' blocks pooled)
  TimingInfo timing;
  std::optional<MemoryStats> memory;
  WorkInfo work;
  std::vector<double> samples;  // seconds per call, one per block, in order
  std::string trace;            // run --trace: the case's profiler trace (Chrome trace JSON)
  std::optional<StageInfo> stage_info;  // stages other than eager
};

struct ResultSet {
  Json context = Json::object();
  std::vector<CaseResult> cases;
  Json summary = Json::object();  // counts and warnings of the run, written at its end
};

// One result from parts of a case's measurement: single repetitions (a run's loop, --isolate's
// processes) or results of several repetitions each (--processes: one per process). Samples
// concatenated in order, statistics over all of them, every part's repetition medians kept and
// the estimate made from all of them, timing summed, the noise the typical repetition's; memory
// from the first part that has it. Any part that failed makes the whole case fail with its
// message.
CaseResult combine_repetitions(const std::vector<CaseResult>& repetitions,
                               const std::string& estimator = k_default_estimator);

// Moves the repetitions of a memory-bound case (timing.repetition_bandwidth) measured at an
// unusual memory bandwidth (either reading not stats::is_usual against `usual`) to
// timing.set_aside, and makes the estimate again from the others with its estimator. When none
// was measured at the usual bandwidth, all stay and the message says so. Records `usual` as
// timing.usual_bandwidth. Nothing happens without readings or a positive `usual`. Returns what it
// did.
struct SetAsideOutcome {
  std::size_t set_aside = 0;    // repetitions moved to timing.set_aside
  bool all_unusual = false;     // every repetition was off the usual level: all kept, message says so
};
SetAsideOutcome set_aside_unusual_bandwidth(CaseResult& result, double usual, double tolerance);

// Past this cv of its (typical repetition's) blocks a case is noisy: its blocks disagree so much
// that its number may be off (pyperf calls a benchmark unstable past a 10% standard deviation).
// Missing the stopping rule's --target-noise is not noisy: a default repetition stops at
// --max-time first in most cases, and the repetitions together make the estimate.
inline constexpr double k_noisy_cv = 0.10;
// Whether an ok case is noisy: timing.noise over k_noisy_cv, or over its target when that is
// looser.
bool noisy(const CaseResult& result);

Json to_json(const CaseResult& result);
Json to_json(const ResultSet& set);
Json to_json(const TimeSpent& spent);

// Throws ResultsError naming `where` on a malformed record.
CaseResult case_result_from_json(const Json& json, const std::string& where);
ResultSet result_set_from_json(const Json& json, const std::string& where);

}  // namespace opbench::results
