#pragma once
// CUDA event timer: a pair of timing-enabled events recorded on the stream around each interval;
// collect() synchronizes once on the last event and reads every pair. Never a host timer around
// asynchronous work. Only built when LibTorch has CUDA (OPBENCH_WITH_CUDA).

#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>

#include <utility>
#include <vector>

#include "opbench/results/vocabulary.hpp"

namespace opbench::measure {

class CudaEventTimer {
public:
  // Intervals recorded between two reads: the stream stays busy, one synchronize reads them all.
  static constexpr int k_blocks_per_collect = 8;

  explicit CudaEventTimer(c10::cuda::CUDAStream stream) : m_stream(stream) {}
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;

  // Event pairs are kept and re-recorded, so after the first batch no event is created (a
  // cudaEventCreate on the host) between the two records of an interval.
  void start() {
    if (m_used == m_pairs.size()) {
      m_pairs.emplace_back(c10::cuda::CUDAEvent(cudaEventDefault),
                           c10::cuda::CUDAEvent(cudaEventDefault));
    }
    m_pairs[m_used].first.record(m_stream);
  }
  void stop() { m_pairs[m_used++].second.record(m_stream); }
  std::vector<double> collect() {
    std::vector<double> seconds;
    if (m_used == 0)
      return seconds;
    m_pairs[m_used - 1].second.synchronize();
    for (std::size_t i = 0; i < m_used; ++i) {
      seconds.push_back(static_cast<double>(m_pairs[i].first.elapsed_time(m_pairs[i].second)) *
                        1e-3);
    }
    m_used = 0;
    return seconds;
  }
  results::Timer id() const { return results::Timer::cuda_event; }

private:
  c10::cuda::CUDAStream m_stream;
  std::vector<std::pair<c10::cuda::CUDAEvent, c10::cuda::CUDAEvent>> m_pairs;
  std::size_t m_used = 0; // pairs recorded since the last collect()
};

} // namespace opbench::measure
