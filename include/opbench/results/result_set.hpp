#pragma once
// What a run produces: its context and one result per case, raw samples kept.
// Times are seconds; memory is bytes. The JSON carries k_schema_version.

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/cost/work.hpp"
#include "opbench/results/case.hpp"
#include "opbench/results/device_state.hpp"
#include "opbench/results/kernel_time.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::results {

inline constexpr int k_schema_version = 1;

// Exact allocation figures of one untimed call, from the allocation reporter.
struct MemoryStats {
  std::int64_t peak_bytes = 0;  // highest live bytes above the level before the call
  std::int64_t total_bytes = 0; // sum of every allocation's size
  std::int64_t allocations = 0; // number of allocations
  // CUDA only: the caching allocator's own peaks (reset before the probe; inputs included).
  std::optional<std::int64_t> device_peak_allocated_bytes;
  std::optional<std::int64_t> device_peak_reserved_bytes;
  // Training steps (Direction::train) only: the bytes the forward under autograd still holds when
  // backward starts (what autograd saved for backward and the forward's outputs), above the
  // level before it: the activation memory a batch size is chosen by.
  std::optional<std::int64_t> kept_for_backward_bytes;
};

// Where a case's wall-clock time went besides its timed blocks (TimingInfo::total_time), in
// seconds, summed over its kept repetitions; a run's summary adds them up (`time_spent`).
struct TimeSpent {
  double inputs = 0;    // making the inputs (every repetition makes its own)
  double recording = 0; // the untimed call under the ATen-call recorder (the first repetition;
                        // every one on CUDA, where it decides whether a graph can hold the call)
  double warmup = 0;    // warmup and block-size calibration calls
  double retaken = 0;   // timed blocks dropped because the process was interrupted in them
  double canary = 0;    // the speed canary before and after the timing
  double probes = 0;    // the memory probe and the trace (the first repetition)
  double total() const { return inputs + recording + warmup + retaken + canary + probes; }
  TimeSpent& operator+=(const TimeSpent& other);
};

// How the samples were taken.
struct TimingInfo {
  std::optional<Timer> timer; // the clock (vocabulary.hpp); none when nothing was timed
  std::string mode = "hot";   // "hot", or "cold" (cache overwritten before each call)
  // How opbench called it (vocabulary.hpp; exec/typed_call.hpp).
  CallPath call_path = CallPath::boxed;
  // "off", "on (K calls per replay)", "off: one call an interval; launch gated: ..." (a call
  // timed alone, eager, behind measure/launch_gate.hpp; the graph stage's call is its replay),
  // "on|off: no device work" or "fallback: why".
  std::string cuda_graph = "off";
  // What `samples` and the estimate time. "host": the host clock around back-to-back calls (CPU
  // cases). On CUDA: "gpu", the device's execution per call with launch overhead hidden (CUDA-
  // graph replays of many calls, or, for a call timed alone, one eager call behind the launch
  // gate; timed with events); "batch", back-to-back eager launches timed
  // with events, where no graph could be captured (`cuda_graph` says why; a call that launches
  // slower than the device runs it shows its launch time here); "cpu", the host's time per call,
  // for calls that launch no device work (views, metadata); "host_sync" with --timer host.
  Measures measures = Measures::host;
  // The arguments put back to their made values before every timed call (an in-place operator's
  // written inputs: exec's Workload::restore); empty when the call writes none it reads, and in
  // files from before 2026-11-25, whose in-place cases ran on what earlier calls left.
  std::vector<std::string> restored;
  // CUDA cases, one value per repetition (seconds per call): the host's time in one call (its
  // launches and host work, the device drained before each block: what eager mode costs the
  // host), and back-to-back eager calls timed with CUDA events (what an eager loop sustains).
  std::vector<double> cpu_times;
  std::vector<double> batch_times;
  std::int64_t block_size = 0;   // calls per timed block
  std::int64_t warmup_calls = 0; // calls before the first timed block (calibration included)
  double total_time = 0;         // seconds spent in timed blocks
  double target_noise = 0;       // relative noise (cv) the run aimed for
  double noise = 0;              // relative noise reached (cv of the samples)
  bool noise_reached = false;    // noise <= target_noise
  std::vector<double> repetition_medians; // one median per repetition (--repetitions)
  // The measuring process (0-based, `run --processes`) of each repetition median, in their order;
  // empty when they all came from one process or it is not known (files from before
  // 2026-11-28, --isolate, a run of one process).
  std::vector<int> repetition_processes;
  std::int64_t discarded_blocks = 0; // blocks taken again: the process was interrupted
  // Batches of blocks kept though the process was interrupted in them: one-thread CPU cases whose
  // thread lost under measure::k_negligible_loss of the batch's time off the CPU.
  std::int64_t interrupted_kept = 0;
  std::int64_t placement_padding = 0; // bytes allocated before the inputs (first repetition)
  double canary = 0; // [s] the speed canary around the timing (machine/canary.hpp), slower of the
                     // one before and the one after; the slowest over kept repetitions; 0: none
  std::int64_t retried_repetitions = 0; // repetitions measured again: the machine was slow
  // Memory-bound CPU cases (machine/canary.hpp's memory_bound_bytes): the
  // memory canary's bandwidth [bytes/s] before and after each repetition, in the order of
  // repetition_medians; empty for other cases.
  std::vector<std::array<double, 2>> repetition_bandwidth;
  // Repetitions measured while the host gave an unusual memory bandwidth for the run (either
  // reading not within --bandwidth-tolerance of usual_bandwidth): kept here, out of
  // repetition_medians and so out of the estimate (set_aside_unusual_bandwidth).
  struct SetAside {
    double median = 0;
    std::array<double, 2> bandwidth{};
    std::size_t repetition =
        0; // its place among all the case's repetitions (0-based), set aside or not
  };
  std::vector<SetAside> set_aside;
  double usual_bandwidth =
      0; // [bytes/s] the run's usual memory canary at the case's threads; 0: none
  // CUDA cases, where NVML could be read (machine/device_state.hpp): the device's state at the
  // start and the end of each repetition, in the order of repetition_medians; empty otherwise
  // (CPU cases, no NVML, files from before 2026-11-30).
  std::vector<RepetitionDeviceState> repetition_device_state;
  // Kept repetitions that ran on a slowed device (results::slowed: a slowdown reason, or the SM
  // clock under its case's highest by more than the slow tolerance) after the retries were spent.
  std::int64_t device_slowed_repetitions = 0;
  TimeSpent spent;
};

// How a stage other than eager ran the case (stages/stages.hpp) and why its time differs: the
// compiler path, what the optimized graph holds, and the check of its outputs against eager.
struct StageInfo {
  // "torchscript" (graph executor, fusion off), "torchscript+onednn_graph" or
  // "torchscript+tensorexpr" (with that fuser), "cuda_graph" (one graph replay per call).
  std::string runner;
  std::optional<std::int64_t>
      graph_ops; // operator nodes the executed graph runs outside fusion groups
  std::optional<std::int64_t> fusion_groups; // fused kernels (groups) in the executed graph
  std::optional<std::int64_t> fused_ops;     // operator nodes inside those groups
  // Worst |stage - eager| / (atol + rtol * max|eager|) over every output element (<= 1 passes;
  // measure/output_check.hpp); 0 when the outputs are identical.
  double check = 0;
  std::string tolerance; // "|d| <= 1e-05 + 0.0001 * max|eager|" (float32), "exact" (integers, bool)
  std::string note;      // anything the reader should know (e.g. host-read inputs baked in)
  // Seconds from the eager computation to a stage ready to time (the compile cost a user pays
  // once per input shape; docs/stages.md, "Compile cost"): script and fused, the trace and the
  // calls until the optimized graph runs (the profiling runs included); inductor, the trace, the
  // package's compile (Python included) and its load. `compile_cached`: the package came from the
  // cache, and its compile time is the one recorded when it was made. None: not measured.
  std::optional<double> compile_time;
  bool compile_cached = false;
};

// An implementation of a variant group (Case::variant) held against its group's baseline:
// whether it was checked, against what, when, and how it came out (docs/custom-ops.md,
// "Implementations side by side"). Before its timed blocks, each repetition calls both on the
// same input values; after them, it fills the very tensors it timed with fresh values and holds
// what it returns on them against the baseline's again, so a kernel that changes its answer after
// many calls, or keys a cache on the inputs' addresses, is caught. No speedup is shown for an
// implementation whose check failed or was not made (report/variants_reporter.hpp).
struct OutputCheck {
  std::string against; // the baseline's case id
  int before = 0;      // repetitions whose outputs were held before their timed blocks
  int after = 0;       // repetitions whose outputs were held again after them
  // The largest |implementation - baseline| / (atol + rtol * max|baseline|) of any element seen
  // (<= 1 passes; measure/output_check.hpp), and the tolerance it is against.
  double worst = 0;
  std::string tolerance;
  std::string failed;   // "" when every check made passed; else the first failure, saying when
  std::string not_made; // "" when made; else why not (the baseline itself failed)
  bool passed() const { return failed.empty() && not_made.empty() && before > 0; }
  // Adds another repetition's record: counts summed, the worst kept, the first failure kept.
  void add(const OutputCheck& other);
};

// The estimator a case's time is made with unless the run says another (estimate.hpp lists
// them and why this one).
inline constexpr const char* k_default_estimator = "fastest-third";

// The case's time and how sure it is across repetitions (each one fresh inputs at another
// placement, at another moment, in one of the run's processes (--processes) or in a process of its
// own (--isolate)): `time`, the estimator over
// the repetition medians, which compare, the gate, the history, the roofline and every report use
// as the case's time; the median of the repetition medians with a distribution-free interval of it
// (stats::median_interval, 95% asked; the default 6 repetitions give [min, max] at 96.9%, 7 at
// 98.4%, 5 at 93.75%), and the relative spread of the repetition medians.
// A case's interval (results::interval_of; docs/results.md, "The interval"): `time` x (1 -/+
// half_width), half_width relative, NaN with fewer than two repetitions. `basis`: what it saw
// differ, the measuring processes (their fastest repetitions) or, when all came from one process
// or that is not known, the repetitions themselves (then it cannot see what a fresh process
// changes, and says so). `allowance`: the least half-width the run gave its cases (NaN: not
// known, results::k_run_allowance). `wide`: why it is wider than k_run_allowance; none when not.
struct Interval {
  double half_width = std::numeric_limits<double>::quiet_NaN();
  double allowance = std::numeric_limits<double>::quiet_NaN();
  double low = std::numeric_limits<double>::quiet_NaN(); // [s]
  double high = std::numeric_limits<double>::quiet_NaN();
  IntervalBasis basis = IntervalBasis::repetitions;
  WideReason wide = WideReason::none;
};

struct Estimate {
  std::string estimator = k_default_estimator;
  double time = 0; // seconds: `estimator` over the repetition medians; NaN when no repetition
  std::size_t repetitions = 0;
  double median = 0; // seconds: the median of the repetition medians
  double low = 0;    // interval of `median` [s]
  double high = 0;
  double coverage = 0; // exact coverage of [low, high]; 0 with one repetition
  double spread = 0;   // (max - min) / median of the repetition medians
  // The repetition medians disagree past what a case's noise allows (results::is_unstable): the
  // time may be one of two levels the case switches between. Outputs mark it; compare calls it
  // unknown.
  bool unstable = false;
  // Where another run of the same build is expected to find `time` (results::interval_of;
  // docs/results.md, "The interval").
  Interval interval;
};

struct CaseResult {
  results::Case c;
  Status status = Status::ok;
  std::string message;    // why, when not ok
  Estimate estimate;      // the case's time across repetitions
  stats::Summary summary; // of `samples` (all repetitions' blocks pooled)
  TimingInfo timing;
  std::optional<MemoryStats> memory;
  std::optional<KernelTime> kernel_time; // run --kernel-time, CUDA cases (kernel_time.hpp)
  cost::WorkInfo work;
  std::vector<double> samples;         // seconds per call, one per block, in order
  std::string trace;                   // run --trace: the case's profiler trace (Chrome trace JSON)
  std::optional<StageInfo> stage_info; // stages other than eager
  std::optional<OutputCheck> check;    // implementations of a variant group (OutputCheck)
};

struct ResultSet {
  Json context = Json::object();
  std::vector<CaseResult> cases;
  Json summary = Json::object(); // counts and warnings of the run, written at its end
};

// How many of `results` ended each way.
StatusCounts count_statuses(const std::vector<CaseResult>& results);

Json to_json(const CaseResult& result);
Json to_json(const ResultSet& set);
Json to_json(const TimeSpent& spent);

// Throws ResultsError naming `where` on a malformed record.
CaseResult case_result_from_json(const Json& json, const std::string& where);
ResultSet result_set_from_json(const Json& json, const std::string& where);

} // namespace opbench::results
