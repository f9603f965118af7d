#pragma once
// Timers are small move-only objects: start(), stop(), seconds().

#include <chrono>

namespace opbench::exec {

// Host wall clock (std::chrono::steady_clock). For CPU work, which is synchronous.
class SteadyTimer {
 public:
  SteadyTimer() = default;
  SteadyTimer(const SteadyTimer&) = delete;
  SteadyTimer& operator=(const SteadyTimer&) = delete;
  SteadyTimer(SteadyTimer&&) = default;
  SteadyTimer& operator=(SteadyTimer&&) = default;

  void start() { m_start = std::chrono::steady_clock::now(); }
  void stop() { m_stop = std::chrono::steady_clock::now(); }
  // Seconds between the last start() and stop().
  double seconds() const { return std::chrono::duration<double>(m_stop - m_start).count(); }
  static const char* name() { return "steady_clock"; }

 private:
  std::chrono::steady_clock::time_point m_start{};
  std::chrono::steady_clock::time_point m_stop{};
};

}  // namespace opbench::exec
