#pragma once
// Capturing calls into a CUDA graph: the driver's GPU time (many calls per replay) and the graph
// stage (stages.hpp, one call per replay) capture the same way. CUDA builds only.
#if OPBENCH_WITH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/core/Device.h>

#include <functional>
#include <memory>

namespace opbench::measure {

// Captures `calls` calls of `once` into a CUDA graph on a side stream, after three warm-up calls
// on that stream (as capture requires); throws with LibTorch's reason when capture fails, leaving
// no capture open behind.
std::unique_ptr<at::cuda::CUDAGraph> capture_graph(const at::Device& device,
                                                   const std::function<void()>& once, int calls);

} // namespace opbench::measure
#endif
