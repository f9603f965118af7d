#pragma once
// The timing loops. Hot: warmup, block-size calibration, timed blocks, adaptive stopping; a
// block is k back-to-back calls timed as one, k chosen so one block lasts at least `block_time`
// (the clock's own cost and resolution vanish); a sample is block time / k. Cold: `flush` runs
// untimed before every call, and each call is timed alone (block size 1).
// Timer: start(), stop(), collect() (see timer.hpp) and k_blocks_per_collect, the number of
// intervals marked before each collect(): asynchronous timers read many after one synchronize.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include "opbench/stats/statistics.hpp"

namespace opbench::exec {

struct MeasureOptions {
  int warmup = 3;             // calls before calibration
  int min_runs = 10;          // samples at least (wins over max_time)
  double min_time = 0.1;      // seconds of timed blocks at least
  double max_time = 0.5;      // stop once min_runs are in and this many seconds are spent, in
                              // timed blocks or on the wall clock (cold flushes are untimed)
  double target_noise = 0.02; // stop early once the samples' cv is at or under this
  double block_time = 1e-3;   // a block lasts at least this many seconds
  std::int64_t max_block = 1 << 20;  // calls per block at most
};

struct Measurement {
  std::vector<double> samples;  // seconds per call
  std::int64_t block_size = 1;
  std::int64_t warmup_calls = 0;
  double total_time = 0;  // seconds in timed blocks
  double noise = 0;       // cv of samples
  bool noise_reached = false;
};

namespace detail {

// Takes timed intervals of `calls` calls each, a batch per collect(), until the stopping rule
// says enough. `before` runs untimed before each interval.
template <typename Timer, typename Call, typename Before>
void sample_until_done(Measurement& m, Timer& timer, Call& call, Before& before,
                       std::int64_t calls, const MeasureOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  while (true) {
    for (int b = 0; b < Timer::k_blocks_per_collect; ++b) {
      before();
      timer.start();
      for (std::int64_t i = 0; i < calls; ++i) call();
      timer.stop();
    }
    for (double t : timer.collect()) {
      m.samples.push_back(t / static_cast<double>(calls));
      m.total_time += t;
    }
    const bool enough = static_cast<int>(m.samples.size()) >= options.min_runs &&
                        m.total_time >= options.min_time;
    if (!enough) continue;
    m.noise = stats::cv(m.samples);
    m.noise_reached = m.noise <= options.target_noise;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (m.noise_reached || m.total_time >= options.max_time || wall >= options.max_time) return;
  }
}

}  // namespace detail

// Hot measurement of `call` (run as `call()`).
template <typename Timer, typename Call>
Measurement measure(Call&& call, const MeasureOptions& options, Timer& timer) {
  Measurement m;
  for (int i = 0; i < options.warmup; ++i) call();
  m.warmup_calls = options.warmup;

  // Calibration: grow k until one block lasts block_time; these calls are warmup too.
  std::int64_t k = 1;
  while (true) {
    timer.start();
    for (std::int64_t i = 0; i < k; ++i) call();
    timer.stop();
    const std::vector<double> t = timer.collect();
    m.warmup_calls += k;
    if (t.front() >= options.block_time || k >= options.max_block) break;
    const double scale = t.front() > 0 ? options.block_time * 1.2 / t.front() : 100.0;
    const auto next = static_cast<std::int64_t>(std::ceil(static_cast<double>(k) * scale));
    k = std::min(options.max_block, std::max(k * 2, std::min(next, k * 100)));
  }
  m.block_size = k;
  auto nothing = [] {};
  detail::sample_until_done(m, timer, call, nothing, k, options);
  return m;
}

// Cold measurement: `flush` (untimed) before every timed call.
template <typename Timer, typename Call, typename Flush>
Measurement measure_cold(Call&& call, Flush&& flush, const MeasureOptions& options, Timer& timer) {
  Measurement m;
  for (int i = 0; i < options.warmup; ++i) {
    flush();
    call();
  }
  m.warmup_calls = options.warmup;
  m.block_size = 1;
  detail::sample_until_done(m, timer, call, flush, 1, options);
  return m;
}

}  // namespace opbench::exec
