#pragma once
// The timing loops. Hot: warmup, block-size calibration, timed blocks, adaptive stopping; a
// block is k back-to-back calls timed as one, k chosen so one block lasts at least `block_time`
// (the clock's own cost and resolution vanish); a sample is block time / k. Cold: `flush` runs
// untimed before every call, and each call is timed alone (block size 1).
// Timer: start(), stop(), collect() (see timer.hpp) and k_blocks_per_collect, the number of
// intervals marked before each collect(): asynchronous timers read many after one synchronize.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "opbench/measure/holding.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::measure {

struct MeasureOptions {
  // Per measurement, i.e. per repetition of a case: a run measures each case in several
  // repetitions spread over the run (run/settings.hpp: RunSettings::repetitions), so these are
  // small.
  int warmup = 2;                   // untimed calls before the first timed block, at least; the
                                    // block-size calibration's calls count (it makes at least one)
  int min_runs = 3;                 // samples at least (wins over max_time)
  double min_time = 0.01;           // seconds of timed blocks at least
  double max_time = 0.04;           // stop once min_runs are in and this many seconds are spent, in
                                    // timed blocks or on the wall clock (cold flushes are untimed)
  double target_noise = 0.02;       // stop early once the samples' cv is at or under this
  double block_time = 1e-3;         // a block lasts at least this many seconds
  std::int64_t max_block = 1 << 20; // calls per block at most
  // A cumulative count of interruptions of this process (involuntary context switches:
  // interruptions_of_this_process()); when set, a batch of blocks during which it moves was
  // partly spent running something else and is taken again instead of kept. Re-takes stop once
  // as many batches were dropped as kept (plus min_runs): a machine that interrupts every block
  // still gets a measurement, and `discarded` says how contaminated it was.
  std::function<std::int64_t()> interruptions;
};

struct Measurement {
  std::vector<double> samples; // seconds per call
  std::int64_t block_size = 1;
  std::int64_t warmup_calls = 0;
  double total_time = 0; // seconds in timed blocks
  double noise = 0;      // cv of samples
  bool noise_reached = false;
  std::int64_t discarded = 0; // blocks dropped because the process was interrupted in them
  double warmup_time = 0;     // [s] wall clock of the warmup and calibration calls
  double retaken_time = 0;    // [s] in the dropped blocks (what re-taking them cost)
};

// Involuntary context switches of this process so far (all threads; getrusage RUSAGE_SELF):
// the scheduler took a CPU from one of our threads to run something else.
inline std::int64_t interruptions_of_this_process() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  return static_cast<std::int64_t>(usage.ru_nivcsw);
}

// Seconds of the steady clock since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

namespace detail {

// Takes timed intervals of `calls` calls each (`run(calls)`), a batch per collect(), until the
// stopping rule says enough. `before` runs untimed before each interval.
template <typename Timer, typename Run, typename Before>
void sample_until_done(Measurement& m, Timer& timer, Run& run, Before& before, std::int64_t calls,
                       const MeasureOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  std::int64_t kept_batches = 0;
  std::int64_t dropped_batches = 0;
  while (true) {
    const std::int64_t interrupted_before = options.interruptions ? options.interruptions() : 0;
    for (int b = 0; b < Timer::k_blocks_per_collect; ++b) {
      before();
      timer.start();
      run(calls);
      timer.stop();
    }
    const std::vector<double> batch = timer.collect();
    const bool interrupted = options.interruptions &&
                             options.interruptions() != interrupted_before &&
                             dropped_batches < kept_batches + options.min_runs;
    if (interrupted) {
      ++dropped_batches;
      m.discarded += static_cast<std::int64_t>(batch.size());
      for (double t : batch)
        m.retaken_time += t;
    } else {
      ++kept_batches;
      for (double t : batch) {
        m.samples.push_back(t / static_cast<double>(calls));
        m.total_time += t;
      }
    }
    const double wall = seconds_since(wall_start);
    const bool enough =
        static_cast<int>(m.samples.size()) >= options.min_runs && m.total_time >= options.min_time;
    // (Drops are bounded by the kept batches, so this loop ends like one without drops.)
    if (!enough)
      continue;
    m.noise = stats::cv(m.samples);
    m.noise_reached = m.noise <= options.target_noise;
    if (m.noise_reached || m.total_time >= options.max_time || wall >= options.max_time)
      return;
  }
}

} // namespace detail

// Hot measurement of `run`, which makes n calls back to back (run as `run(n)`). The loop over
// the calls is the callee's: where `run` is reached through a std::function (workload.hpp's
// Workload::repeat), the timed block pays one indirect call, not one a call (on a 0.4 us
// operator, a std::function a call cost 8%: docs/reproducibility-log.md).
template <typename Timer, typename Run>
Measurement measure_repeated(Run&& run, const MeasureOptions& options, Timer& timer) {
  Measurement m;
  hold_phase(Phase::warmup);
  const auto warmup_start = std::chrono::steady_clock::now();
  // Calibration makes at least one call, and its calls are warmup too: a call that lasts a
  // block already is made `warmup` times before its first timed block, not `warmup` + 1.
  if (options.warmup > 1)
    run(static_cast<std::int64_t>(options.warmup - 1));
  m.warmup_calls = std::max(0, options.warmup - 1);

  // Calibration: grow k until one block lasts block_time.
  std::int64_t k = 1;
  while (true) {
    timer.start();
    run(k);
    timer.stop();
    const std::vector<double> t = timer.collect();
    m.warmup_calls += k;
    if (t.front() >= options.block_time || k >= options.max_block)
      break;
    const double scale = t.front() > 0 ? options.block_time * 1.2 / t.front() : 100.0;
    const auto next = static_cast<std::int64_t>(std::ceil(static_cast<double>(k) * scale));
    k = std::min(options.max_block, std::max(k * 2, std::min(next, k * 100)));
  }
  m.block_size = k;
  m.warmup_time = seconds_since(warmup_start);
  hold_phase(Phase::timed);
  auto nothing = [] {};
  detail::sample_until_done(m, timer, run, nothing, k, options);
  return m;
}

// measure_repeated's `run` made of one call: `call` n times, in a loop compiled around it (the
// callable is kept by value: std::ref(call) to keep a reference).
template <typename Call> auto repeated(Call&& call) {
  return [call = std::forward<Call>(call)](std::int64_t n) mutable {
    for (std::int64_t i = 0; i < n; ++i)
      call();
  };
}

// Hot measurement of `call` (run as `call()`), the loop over the calls inlined around it.
template <typename Timer, typename Call>
Measurement measure(Call&& call, const MeasureOptions& options, Timer& timer) {
  return measure_repeated(repeated(std::ref(call)), options, timer);
}

// Cold measurement: `flush` (untimed) before every timed call. Also how a call that writes its
// own inputs is timed: `flush` puts them back first (workload.hpp's Workload::restore), so every
// timed call starts from the made inputs.
template <typename Timer, typename Call, typename Flush>
Measurement measure_cold(Call&& call, Flush&& flush, const MeasureOptions& options, Timer& timer) {
  Measurement m;
  hold_phase(Phase::warmup);
  const auto warmup_start = std::chrono::steady_clock::now();
  for (int i = 0; i < options.warmup; ++i) {
    flush();
    call();
  }
  m.warmup_calls = options.warmup;
  m.block_size = 1;
  m.warmup_time = seconds_since(warmup_start);
  hold_phase(Phase::timed);
  auto once = [&call](std::int64_t) { call(); };
  detail::sample_until_done(m, timer, once, flush, 1, options);
  return m;
}

} // namespace opbench::measure
