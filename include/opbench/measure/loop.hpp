#pragma once
// The timing loops. Hot: warmup, block-size calibration, timed blocks, adaptive stopping; a
// block is k back-to-back calls timed as one, k chosen so one block lasts at least `block_time`
// (the clock's own cost and resolution vanish); a sample is block time / k. Cold: `flush` runs
// untimed before every call, and each call is timed alone (block size 1).
// Timer: start(), stop(), collect() (see timer.hpp) and k_blocks_per_collect, the number of
// intervals marked before each collect(): asynchronous timers read many after one synchronize.

#include <sys/resource.h>
#include <time.h>

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

// What earlier repetitions of the same case found (run/run_loop.cpp hands it on: within a
// process, and from one process of a run to the next): the block size and the fastest time per
// call [s]. docs/measuring.md, "Warm at the first call".
struct Calibration {
  std::int64_t block_size = 0; // calls a block; 0: nothing known
  double seconds_per_call = 0;
};

struct MeasureOptions {
  // Per measurement, i.e. per repetition of a case: a run measures each case in several
  // repetitions spread over the run (run/settings.hpp: RunSettings::repetitions), so these are
  // small.
  int warmup = 2;                   // untimed calls before the first timed block, at least; the
                                    // block-size calibration's calls count (it makes at least one)
  int min_runs = 3;                 // samples at least (wins over max_time)
  double min_time = 0.01;           // seconds of timed blocks at least
  double max_time = 0.03;           // stop once min_runs are in and this many seconds are spent, in
                                    // timed blocks or on the wall clock (cold flushes are untimed)
  double target_noise = 0.02;       // stop early once the samples' cv is at or under this
  double block_time = 1e-3;         // a block lasts at least this many seconds
  std::int64_t max_block = 1 << 20; // calls per block at most
  // A case known to take a block a call (`known.block_size` 1) is warmed up one timed call at a
  // time: the first call within this fraction over the known time per call ends the warmup, and
  // the timed blocks follow (never more calls than `warmup`, as without it; a call shorter than
  // a block now sends it to the full calibration). 0: always the full warmup.
  double warm_tolerance = 0.05;
  Calibration known; // set per repetition by the run's loop; none: the full warmup
  // A cumulative count of interruptions of this process (involuntary context switches:
  // interruptions_of_this_process()); when set, a batch of blocks during which it moves was
  // partly spent running something else and is taken again instead of kept. Re-takes stop once
  // as many batches were dropped as kept (plus min_runs): a machine that interrupts every block
  // still gets a measurement, and `discarded` says how contaminated it was.
  std::function<std::int64_t()> interruptions;
  // Seconds of CPU time the measuring thread has had (CLOCK_THREAD_CPUTIME_ID), set for a case
  // whose work all runs on it (one thread): an interrupted batch is then taken again only when
  // the time it spent off the CPU, its wall clock less that CPU time, is over
  // k_negligible_loss of its wall clock. A 1.4 s matmul descheduled for 3 ms has lost 0.2%, and
  // taking it again buys nothing (docs/measuring.md, "Where a run's time goes").
  std::function<double()> thread_cpu_seconds;
};

// The share of a batch's wall clock it may have spent descheduled and still be kept.
inline constexpr double k_negligible_loss = 0.002;

struct Measurement {
  std::vector<double> samples; // seconds per call
  std::int64_t block_size = 1;
  std::int64_t warmup_calls = 0;
  double total_time = 0; // seconds in timed blocks
  double noise = 0;      // cv of samples
  bool noise_reached = false;
  std::int64_t discarded = 0;        // blocks dropped because the process was interrupted in them
  std::int64_t interrupted_kept = 0; // batches kept though interrupted: a negligible loss
  double warmup_time = 0;            // [s] wall clock of the warmup and calibration calls
  double retaken_time = 0;           // [s] in the dropped blocks (what re-taking them cost)
  // The first warmup call was within warm_tolerance of the known time per call: the rest of the
  // warmup was not made.
  bool warm_at_first_call = false;
};

// Involuntary context switches of this process so far (all threads; getrusage RUSAGE_SELF):
// the scheduler took a CPU from one of our threads to run something else.
inline std::int64_t interruptions_of_this_process() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  return static_cast<std::int64_t>(usage.ru_nivcsw);
}

// Seconds of CPU time this thread has had (user and system).
inline double cpu_seconds_of_this_thread() {
  timespec t{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
    return 0;
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
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
    const double cpu_before = options.thread_cpu_seconds ? options.thread_cpu_seconds() : 0.0;
    const auto batch_start = std::chrono::steady_clock::now();
    for (int b = 0; b < Timer::k_blocks_per_collect; ++b) {
      before();
      timer.start();
      run(calls);
      timer.stop();
    }
    const double batch_wall = seconds_since(batch_start);
    const double batch_cpu =
        options.thread_cpu_seconds ? options.thread_cpu_seconds() - cpu_before : 0.0;
    const std::vector<double> batch = timer.collect();
    bool interrupted = options.interruptions && options.interruptions() != interrupted_before &&
                       dropped_batches < kept_batches + options.min_runs;
    if (interrupted && options.thread_cpu_seconds &&
        batch_wall - batch_cpu <= k_negligible_loss * batch_wall) {
      interrupted = false; // descheduled, but for a negligible share of the batch
      ++m.interrupted_kept;
    }
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

// The warmup of a case known to take a block a call: calls timed one at a time (not kept) until
// one is within warm_tolerance over the known time per call, at most max(warmup, 1) of them, as
// many as the full warmup would make. True when the timed blocks may follow with one call a
// block; false when nothing is known or a call was shorter than a block (the full calibration
// follows). Its calls count as warmup either way.
template <typename Timer, typename Run>
bool warm_by_known_call(Measurement& m, Timer& timer, Run& run, const MeasureOptions& options) {
  const Calibration& known = options.known;
  if (options.warm_tolerance <= 0 || known.block_size != 1 || !(known.seconds_per_call > 0))
    return false;
  const int most = std::max(options.warmup, 1);
  for (int i = 0; i < most; ++i) {
    timer.start();
    run(1);
    timer.stop();
    const double t = timer.collect().front();
    ++m.warmup_calls;
    if (t < options.block_time)
      return false;
    if (t <= known.seconds_per_call * (1 + options.warm_tolerance)) {
      m.warm_at_first_call = i == 0 && most > 1;
      return true;
    }
  }
  return true;
}

// The full warmup and calibration: `warmup` - 1 calls, then k grows until one block lasts
// block_time (calibration makes at least one call, and its calls are warmup too: a call that lasts
// a block already is made `warmup` times before its first timed block, not `warmup` + 1).
// Returns k.
template <typename Timer, typename Run>
std::int64_t warm_and_calibrate(Measurement& m, Timer& timer, Run& run,
                                const MeasureOptions& options) {
  if (options.warmup > 1)
    run(static_cast<std::int64_t>(options.warmup - 1));
  m.warmup_calls += std::max(0, options.warmup - 1);
  std::int64_t k = 1;
  while (true) {
    timer.start();
    run(k);
    timer.stop();
    const std::vector<double> t = timer.collect();
    m.warmup_calls += k;
    if (t.front() >= options.block_time || k >= options.max_block)
      return k;
    const double scale = t.front() > 0 ? options.block_time * 1.2 / t.front() : 100.0;
    const auto next = static_cast<std::int64_t>(std::ceil(static_cast<double>(k) * scale));
    k = std::min(options.max_block, std::max(k * 2, std::min(next, k * 100)));
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
  m.block_size = detail::warm_by_known_call(m, timer, run, options)
                     ? 1
                     : detail::warm_and_calibrate(m, timer, run, options);
  m.warmup_time = seconds_since(warmup_start);
  hold_phase(Phase::timed);
  auto nothing = [] {};
  detail::sample_until_done(m, timer, run, nothing, m.block_size, options);
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
