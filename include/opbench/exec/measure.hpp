#pragma once
// The timing loop: warmup, block-size calibration, timed blocks, adaptive stopping.
// A block is k back-to-back calls timed as one; a sample is block time / k. k is chosen so one
// block lasts at least `block_time`, which makes the clock's own cost and resolution vanish.

#include <cmath>
#include <cstdint>
#include <vector>

#include "opbench/stats/statistics.hpp"

namespace opbench::exec {

struct MeasureOptions {
  int warmup = 3;             // calls before calibration
  int min_runs = 10;          // samples at least (wins over max_time)
  double min_time = 0.1;      // seconds of timed blocks at least
  double max_time = 1.0;      // stop at this many seconds of timed blocks once min_runs are in
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

// Times `call` (any callable, run as `call()`) with `Timer` (start/stop/seconds).
template <typename Timer, typename Call>
Measurement measure(Call&& call, const MeasureOptions& options) {
  Measurement m;
  Timer timer;
  auto time_block = [&](std::int64_t k) {
    timer.start();
    for (std::int64_t i = 0; i < k; ++i) call();
    timer.stop();
    return timer.seconds();
  };
  for (int i = 0; i < options.warmup; ++i) call();
  m.warmup_calls = options.warmup;

  // Calibration: grow k until one block lasts block_time; these calls are warmup too.
  std::int64_t k = 1;
  while (true) {
    const double t = time_block(k);
    m.warmup_calls += k;
    if (t >= options.block_time || k >= options.max_block) break;
    const double scale = t > 0 ? options.block_time * 1.2 / t : 100.0;
    const auto next = static_cast<std::int64_t>(std::ceil(static_cast<double>(k) * scale));
    k = std::min(options.max_block, std::max(k * 2, std::min(next, k * 100)));
  }
  m.block_size = k;

  while (true) {
    const double t = time_block(k);
    m.samples.push_back(t / static_cast<double>(k));
    m.total_time += t;
    const bool enough = static_cast<int>(m.samples.size()) >= options.min_runs &&
                        m.total_time >= options.min_time;
    if (!enough) continue;
    m.noise = stats::cv(m.samples);
    m.noise_reached = m.noise <= options.target_noise;
    if (m.noise_reached || m.total_time >= options.max_time) break;
  }
  return m;
}

}  // namespace opbench::exec
