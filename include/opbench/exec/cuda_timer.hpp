#pragma once
// CUDA event timer: a pair of timing-enabled events recorded on the stream around each interval;
// collect() synchronizes once on the last event and reads every pair. Never a host timer around
// asynchronous work. Only built when LibTorch has CUDA (OPBENCH_WITH_CUDA).

#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>

#include <utility>
#include <vector>

namespace opbench::exec {

class CudaEventTimer {
 public:
  // Intervals recorded between two reads: the stream stays busy, one synchronize reads them all.
  static constexpr int k_blocks_per_collect = 8;

  explicit CudaEventTimer(c10::cuda::CUDAStream stream) : m_stream(stream) {}
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;

  void start() {
    m_pairs.emplace_back(c10::cuda::CUDAEvent(cudaEventDefault), c10::cuda::CUDAEvent(cudaEventDefault));
    m_pairs.back().first.record(m_stream);
  }
  void stop() { m_pairs.back().second.record(m_stream); }
  std::vector<double> collect() {
    std::vector<double> seconds;
    if (m_pairs.empty()) return seconds;
    m_pairs.back().second.synchronize();
    for (const auto& [begin, end] : m_pairs) seconds.push_back(static_cast<double>(begin.elapsed_time(end)) * 1e-3);
    m_pairs.clear();
    return seconds;
  }
  const char* name() const { return "cuda_event"; }

 private:
  c10::cuda::CUDAStream m_stream;
  std::vector<std::pair<c10::cuda::CUDAEvent, c10::cuda::CUDAEvent>> m_pairs;
};

}  // namespace opbench::exec
