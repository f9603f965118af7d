#include "launch_gate.hpp"

#if OPBENCH_WITH_CUDA
#include <ATen/cuda/Sleep.h>

#include <algorithm>
#include <cmath>

#include <cuda_runtime_api.h>

namespace opbench::measure {

LaunchGate::LaunchGate(c10::cuda::CUDAStream stream)
    : m_stream(stream), m_passed(cudaEventDisableTiming) {
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, stream.device_index()) != cudaSuccess ||
      khz <= 0) {
    (void)cudaGetLastError();
    khz = 2'000'000; // no clock reported: 2 GHz, above any current SM's, so the spin is longer
  }
  m_cycles_per_second = khz * 1e3;
}

void LaunchGate::close() {
  // A slower clock than the reported top one makes the spin longer, never shorter.
  at::cuda::sleep(static_cast<std::int64_t>(m_seconds * m_cycles_per_second));
  m_passed.record(m_stream);
}

void LaunchGate::check() {
  ++m_intervals;
  if (m_passed.query()) {
    ++m_late;
    m_seconds = std::min(2 * m_seconds, k_max_seconds);
  }
}

std::string LaunchGate::describe() const {
  // No fmt here: LibTorch's include directory carries its own (src/CMakeLists.txt).
  return "launch gated: spin " + std::to_string(std::lround(m_seconds * 1e6)) + " us, " +
         std::to_string(m_late) + " of " + std::to_string(m_intervals) +
         " intervals queued after it ended";
}

} // namespace opbench::measure
#endif
