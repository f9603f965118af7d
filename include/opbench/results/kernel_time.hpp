#pragma once
// `run --kernel-time` (CUDA cases): what the profiler (CUPTI through LibTorch's Kineto) saw the
// device run for a case's calls, beside the event timer's time: the kernels' device time per call,
// how many kernels and copies a call launches, and whether any of them ran on a stream the timer
// does not wait for (its time is then not in the case's time). Taken once a case, outside the
// timed loop (measure/kernel_time.hpp takes it); docs/cuda.md, "Kernel time".

#include <cstdint>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"

namespace opbench::results {

// One device activity of the profiled calls.
struct DeviceActivity {
  enum class Kind { kernel, copy, set };
  Kind kind = Kind::kernel;
  std::string name;
  std::int64_t stream = -1; // the profiler's stream id (CUPTI's, not c10's)
  double seconds = 0;       // its device duration
};

struct KernelTime {
  int calls = 0;       // calls profiled
  double per_call = 0; // [s] the kernels' device time summed, per call
  double kernels_per_call = 0;
  double copies_per_call = 0;    // memcpy and memset activities
  double copy_time_per_call = 0; // [s] their device time
  // Kernels or copies on a stream other than the timer's: "2 of 3 activities a call ran on
  // another stream than the timer's (stream 13): the case's time may not hold them"; empty when
  // none did, or the timer's stream was not seen.
  std::string off_stream;
};

// Sums `activities` of `calls` calls; `timer_stream` is the stream the timer records its events
// on, as the profiler names it (-1: not known, nothing is judged off-stream). A marker of the
// timer's stream among the activities must be left out by the caller.
KernelTime kernel_time_of(const std::vector<DeviceActivity>& activities, int calls,
                          std::int64_t timer_stream);

// The result file's `kernel_time`: {"calls", "time" (s per call), "kernels_per_call",
// "copies_per_call", "copy_time" (s per call), "off_stream"}, and back (ResultsError naming
// `where` when malformed).
Json to_json(const KernelTime& k);
KernelTime kernel_time_from_json(const Json& json, const std::string& where);

} // namespace opbench::results
