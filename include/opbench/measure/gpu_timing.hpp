#pragma once
// How a CUDA case's samples are taken (docs/cuda.md, "Three times per case" and "the launch
// gate"): the choice alone, free of LibTorch, so that it is tested where no GPU is. The driver
// (src/measure/driver.cpp) acts on it.
#include <algorithm>
#include <cmath>
#include <string>

namespace opbench::measure {

enum class GpuTiming {
  graph,       // replays of a CUDA graph of calls_per_replay() calls, timed with events
  eager_gated, // a call timed alone: one eager call an interval behind the launch gate
  batch,       // the batch time's measurement: eager calls timed with events, launches included
};

struct GpuTimingChoice {
  GpuTiming how = GpuTiming::graph;
  std::string why; // batch only: why neither of the others ("the call waits for the device ...")
};

// `alone`: each call timed by itself (cold, or inputs put back before every call).
// `waits_for_device`: why the call makes the host wait for the device ("" when it does not): a
// wait inside the interval would hold the launch gate open, and no graph can hold it.
// `not_capturable`: why no graph may hold the call ("" when a capture may be tried: it may still
// fail, and the driver falls back then too).
inline GpuTimingChoice choose_gpu_timing(bool alone, const std::string& waits_for_device,
                                         const std::string& not_capturable) {
  if (!waits_for_device.empty())
    return {GpuTiming::batch, waits_for_device};
  if (alone)
    return {GpuTiming::eager_gated, ""};
  if (!not_capturable.empty())
    return {GpuTiming::batch, not_capturable};
  return {GpuTiming::graph, ""};
}

// How many calls one graph replay holds: enough that a replay lasts about 0.5 ms of eager time
// (`batch_seconds` a call), so the replay's own launch is amortised and the device never waits
// for the host; 1 to 512.
inline int calls_per_replay(double batch_seconds) {
  if (!(batch_seconds > 0))
    return 1;
  return static_cast<int>(std::clamp(std::ceil(5e-4 / batch_seconds), 1.0, 512.0));
}

} // namespace opbench::measure
