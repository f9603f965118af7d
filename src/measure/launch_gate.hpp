#pragma once
// Holding the device back while the host queues one timed interval, so that the CUDA event pair
// around a single eager call times the device's work, not the host's launch of it
// (docs/cuda.md#the-launch-gate). A case timed one call at a time (inputs put back, or cold)
// would otherwise record its start event, then wait for the kernels the host is still launching.
// CUDA builds only.
//
// close() queues ATen's spin kernel (at::cuda::sleep), then an event; the host then queues the
// untimed restore, the start event, the call and the stop event while the device spins. check(),
// called once the call is queued, asks whether the device had already passed the spin: then the
// interval may hold launch latency (`late` counts it) and the next spin is twice as long, up to
// k_max_seconds. The spin is untimed: it lies before the start event.
#if OPBENCH_WITH_CUDA
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>

#include <cstdint>
#include <string>

namespace opbench::measure {

class LaunchGate {
public:
  static constexpr double k_first_seconds = 20e-6; // several host launches (~5 us each)
  // An eager call of a sample can queue hundreds of kernels: milliseconds of host time. A spin
  // this long is reached only by doubling after late intervals, so short calls never wait it.
  static constexpr double k_max_seconds = 10e-3;

  // On `stream`, the current stream of its device (the spin runs on the current stream).
  explicit LaunchGate(c10::cuda::CUDAStream stream);
  LaunchGate(const LaunchGate&) = delete;
  LaunchGate& operator=(const LaunchGate&) = delete;

  void close();
  void check();

  // "launch gated: spin 40 us, 1 of 1954 intervals queued after it ended": the last spin's
  // length, the intervals checked and the late ones.
  std::string describe() const;

private:
  c10::cuda::CUDAStream m_stream;
  c10::cuda::CUDAEvent m_passed;  // recorded right after the spin; timing disabled
  double m_cycles_per_second = 0; // the SM clock the device reports (its top clock)
  double m_seconds = k_first_seconds;
  std::int64_t m_intervals = 0;
  std::int64_t m_late = 0;
};

} // namespace opbench::measure
#endif
