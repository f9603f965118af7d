#pragma once
// Timers are small move-only objects: start() and stop() mark one timed interval; collect()
// returns the seconds of every interval marked since the last collect(), in order. A timer of
// asynchronous work reads its intervals only in collect(), after one synchronize.

#include <chrono>
#include <functional>
#include <utility>
#include <vector>

#include "opbench/results/vocabulary.hpp"

namespace opbench::measure {

// Host wall clock (std::chrono::steady_clock). For CPU work, which is synchronous; with a
// `sync` function (e.g. a CUDA stream synchronize) it waits for the device at start and stop;
// with `sync_at_stop` false only at start: an interval is then the host's own time in the calls
// (launching them), the device drained before it so that no queue it left behind slows it.
class SteadyTimer {
public:
  // Intervals the caller may mark before it calls collect().
  static constexpr int k_blocks_per_collect = 1;

  explicit SteadyTimer(std::function<void()> sync = {}, bool sync_at_stop = true)
      : m_sync(std::move(sync)), m_sync_at_stop(sync_at_stop) {}
  SteadyTimer(const SteadyTimer&) = delete;
  SteadyTimer& operator=(const SteadyTimer&) = delete;
  SteadyTimer(SteadyTimer&&) = default;
  SteadyTimer& operator=(SteadyTimer&&) = default;

  void start() {
    if (m_sync)
      m_sync();
    m_start = std::chrono::steady_clock::now();
  }
  void stop() {
    if (m_sync && m_sync_at_stop)
      m_sync();
    m_seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count());
  }
  std::vector<double> collect() { return std::exchange(m_seconds, {}); }
  results::Timer id() const {
    return !m_sync          ? results::Timer::steady_clock
           : m_sync_at_stop ? results::Timer::host_sync
                            : results::Timer::host_launch;
  }

private:
  std::function<void()> m_sync;
  bool m_sync_at_stop = true;
  std::chrono::steady_clock::time_point m_start{};
  std::vector<double> m_seconds;
};

} // namespace opbench::measure
