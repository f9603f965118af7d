#include "opbench/measure/cuda_graph.hpp"

#if OPBENCH_WITH_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

namespace opbench::measure {

std::unique_ptr<at::cuda::CUDAGraph> capture_graph(const at::Device& device,
                                                   const std::function<void()>& once, int calls) {
  auto graph = std::make_unique<at::cuda::CUDAGraph>();
  const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, device.index());
  const c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream(device.index());
  side.synchronize();
  current.synchronize();
  {
    c10::cuda::CUDAStreamGuard guard(side);
    for (int i = 0; i < 3; ++i)
      once(); // warm up on the capturing stream, as capture requires
    side.synchronize();
    graph->capture_begin();
    try {
      for (int i = 0; i < calls; ++i)
        once();
      graph->capture_end();
    } catch (...) {
      // Leave no capture open behind a failed call (the stream would refuse all later work),
      // and clear the error it left.
      cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
      if (cudaStreamIsCapturing(side.stream(), &status) == cudaSuccess &&
          status != cudaStreamCaptureStatusNone) {
        cudaGraph_t broken = nullptr;
        if (cudaStreamEndCapture(side.stream(), &broken) == cudaSuccess && broken != nullptr)
          cudaGraphDestroy(broken);
      }
      (void)cudaGetLastError();
      throw;
    }
  }
  side.synchronize();
  return graph;
}

} // namespace opbench::measure
#endif
