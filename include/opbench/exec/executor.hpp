#pragma once
// Runs one planned case: inputs, warmup, timed blocks, memory probe (one driver for every kind
// of case: src/exec/workload.hpp). Never throws for a failure
// inside the case: it becomes a result with status "error" (or "skipped") and its message.

#include <cstdint>
#include <string>

#include "opbench/core/names.hpp"
#include "opbench/exec/call_recorder.hpp"
#include "opbench/exec/measure.hpp"
#include "opbench/results/case.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::exec {

// How a CUDA case is timed (run --timer): GPU time from CUDA-graph replays timed with CUDA events,
// with the CPU and batch times beside it (results::TimingInfo::measures); or the host clock with a
// synchronize per block. CPU cases always use the host clock.
enum class CudaTimer { event, host };

struct ExecOptions {
  MeasureOptions measure;
  bool memory = true; // run the untimed memory probe
  // Record one call's ATen calls (their count and work: the same in every repetition, so a
  // run's later repetitions on the CPU skip the recording; CUDA ones record to decide on graphs).
  bool describe = true;
  CudaTimer timer = CudaTimer::event;
  bool cold = false; // overwrite the cache (L2 / last level) before every timed call
  // Which repetition of the case this is (0-based). Each repetition makes its inputs afresh
  // after a padding allocation whose size (0 to 64 KiB, 64-byte steps) is drawn from the case's
  // seed and this index, so that the buffers of successive repetitions land at different
  // offsets (pages, cache sets) and the median over repetitions averages over placements.
  int repetition = 0;
  // How the case's time is made from its repetition medians (results::estimator_names()); one
  // repetition has one median, so this names the estimate rather than changing it.
  std::string estimator = results::k_default_estimator;
  // Not empty: after the timing, profile a few calls (exec/trace.hpp) and write the trace here.
  std::string trace_path;
  // The process's warmup repetition (run/run_loop.hpp): measured, then dropped.
  bool dropped = false;
};

// Bytes of the padding allocation made before repetition `repetition` of a case seeded `seed`.
std::int64_t placement_padding(std::uint64_t seed, int repetition);

results::CaseResult run_case(const results::Case& c, const ExecOptions& options);

// The top-level ATen calls of one untimed call of `c`, its inputs made as run_case makes them
// (from its seed): what a sample or an operator case calls, for `opbench extract --sample`.
// Throws (SkipCase, Error, LibTorch's errors) when the case cannot be made or run.
Recording record_case(const results::Case& c, const RecordOptions& options = {});

// LibTorch's intra-op thread count at this process's first call, kept (the number of physical
// cores: `run` and `calibrate` ask while they plan and collect the context, before any case
// sets the count).
int libtorch_threads();

// The intra-op threads a case runs on when none are asked for: one, as torch.utils.benchmark's
// Timer does. One thread's time is the operator's own; on a shared host how fast two threads run
// depends on where the host puts the guest's vCPUs (docs/reproducibility.md).
int default_threads();

// Throws DeviceError when `device` ("cpu", "cuda:N") cannot run here, saying why.
void check_device(const std::string& device);

} // namespace opbench::exec

namespace opbench::core {

template <> struct NameTable<exec::CudaTimer> {
  static constexpr std::pair<exec::CudaTimer, std::string_view> k_names[] = {
      {exec::CudaTimer::event, "event"}, {exec::CudaTimer::host, "host"}};
};

} // namespace opbench::core
