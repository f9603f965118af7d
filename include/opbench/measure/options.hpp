#pragma once
// What one repetition of a case is measured with: the stopping rule (loop.hpp's MeasureOptions),
// the CUDA timer, the memory probe and the call recording, cold calls, the repetition's index
// (docs/measurement.md).

#include <string>

#include "opbench/core/names.hpp"
#include "opbench/measure/loop.hpp"
#include "opbench/results/estimate.hpp"

namespace opbench::measure {

// How a CUDA case is timed (run --timer): GPU time from CUDA-graph replays timed with CUDA events,
// with the CPU and batch times beside it (results::TimingInfo::measures); or the host clock with a
// synchronize per block. CPU cases always use the host clock.
enum class CudaTimer { event, host };

struct ExecOptions {
  MeasureOptions measure;
  bool memory = true; // run the untimed memory probe
  // CUDA cases: profile a few calls after the timing for the kernels' device time and what a call
  // launches (results/kernel_time.hpp); `run --kernel-time`, the case's first repetition only.
  bool kernel_time = false;
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
  // Not empty: after the timing, profile a few calls (measure/trace.hpp) and write the trace here.
  std::string trace_path;
  // The process's warmup repetition (run/run_loop.hpp): measured, then dropped.
  bool dropped = false;
};

} // namespace opbench::measure

namespace opbench::core {

template <> struct NameTable<measure::CudaTimer> {
  static constexpr std::pair<measure::CudaTimer, std::string_view> k_names[] = {
      {measure::CudaTimer::event, "event"}, {measure::CudaTimer::host, "host"}};
};

} // namespace opbench::core
