#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "opbench/measure/gpu_timing.hpp"
#include "opbench/measure/loop.hpp"

namespace opbench::measure {
namespace {

// A clock that only moves when the fake operator runs.
double g_now = 0;

class FakeTimer {
public:
  static constexpr int k_blocks_per_collect = 3; // like an asynchronous timer: read in batches
  void start() { m_start = g_now; }
  void stop() { m_seconds.push_back(g_now - m_start); }
  std::vector<double> collect() { return std::exchange(m_seconds, {}); }

private:
  double m_start = 0;
  std::vector<double> m_seconds;
};

TEST(Measure, BlockSizeMakesBlocksLastBlockTime) {
  g_now = 0;
  FakeTimer timer;
  std::int64_t calls = 0;
  MeasureOptions options;
  options.warmup = 2;
  options.min_runs = 5;
  options.min_time = 0.0;
  options.block_time = 1e-3;
  const Measurement m = measure(
      [&] {
        g_now += 1e-6;
        ++calls;
      },
      options, timer);
  EXPECT_GE(static_cast<double>(m.block_size) * 1e-6, options.block_time * (1 - 1e-9));
  // Identical samples: noise 0 is reached once min_runs are in, at the end of a batch of 3.
  ASSERT_EQ(m.samples.size(), 6u);
  for (double s : m.samples)
    EXPECT_NEAR(s, 1e-6, 1e-15);
  EXPECT_TRUE(m.noise_reached);
  EXPECT_EQ(calls, m.warmup_calls + 6 * m.block_size);
  EXPECT_NEAR(m.total_time, 6.0 * static_cast<double>(m.block_size) * 1e-6, 1e-12);
}

// measure_repeated hands each block to its callee whole: one run(k) a timed block, the calls of
// warmup and calibration counted as measure's are.
TEST(Measure, RepeatedRunsEachBlockInOneCall) {
  g_now = 0;
  FakeTimer timer;
  std::int64_t calls = 0;
  std::vector<std::int64_t> runs;
  MeasureOptions options;
  options.warmup = 3;
  options.min_runs = 5;
  options.min_time = 0.0;
  options.block_time = 1e-3;
  const Measurement m = measure_repeated(
      [&](std::int64_t n) {
        runs.push_back(n);
        g_now += 1e-6 * static_cast<double>(n);
        calls += n;
      },
      options, timer);
  ASSERT_EQ(m.samples.size(), 6u);
  for (double s : m.samples)
    EXPECT_NEAR(s, 1e-6, 1e-15);
  EXPECT_EQ(calls, m.warmup_calls + 6 * m.block_size);
  ASSERT_GE(runs.size(), 7u);
  EXPECT_EQ(runs.front(), 2); // warmup - 1; calibration's first block is the last warmup call
  for (std::size_t i = runs.size() - 6; i < runs.size(); ++i)
    EXPECT_EQ(runs[i], m.block_size); // the timed blocks
}

TEST(Measure, CalibrationCallsCountAsWarmup) {
  // A call that lasts a block already: calibration's one call is the second warmup call, so
  // `warmup` calls in all come before the first timed block.
  g_now = 0;
  FakeTimer timer;
  std::int64_t calls = 0;
  MeasureOptions options;
  options.warmup = 2;
  options.min_runs = 3;
  options.min_time = 0.0;
  options.block_time = 1e-3;
  const Measurement m = measure(
      [&] {
        g_now += 2e-3;
        ++calls;
      },
      options, timer);
  EXPECT_EQ(m.block_size, 1);
  EXPECT_EQ(m.warmup_calls, 2);
  ASSERT_EQ(m.samples.size(), 3u);
  EXPECT_EQ(calls, 2 + 3);
  EXPECT_GE(m.warmup_time, 0.0);
  EXPECT_DOUBLE_EQ(m.retaken_time, 0.0);
  // No warmup asked: calibration's call is still made first.
  options.warmup = 0;
  calls = 0;
  const Measurement bare = measure(
      [&] {
        g_now += 2e-3;
        ++calls;
      },
      options, timer);
  EXPECT_EQ(bare.warmup_calls, 1);
  EXPECT_EQ(calls, 1 + 3);
}

TEST(Measure, NoisyCaseRunsUntilMaxTime) {
  g_now = 0;
  FakeTimer timer;
  std::int64_t i = 0;
  MeasureOptions options;
  options.warmup = 0;
  options.min_runs = 3;
  options.min_time = 0.0;
  options.max_time = 0.5;
  options.target_noise = 0.0001;
  options.block_time = 0.01;
  // Alternating 10 ms and 30 ms calls: every block is one call, cv stays far above target.
  const Measurement m = measure([&] { g_now += (i++ % 2 == 0) ? 0.01 : 0.03; }, options, timer);
  EXPECT_EQ(m.block_size, 1);
  EXPECT_FALSE(m.noise_reached);
  EXPECT_GE(m.total_time, options.max_time);
  EXPECT_LT(m.total_time, options.max_time + 3 * 0.031); // at most one batch past max_time
}

TEST(Measure, MinRunsWinsOverMaxTime) {
  g_now = 0;
  FakeTimer timer;
  MeasureOptions options;
  options.warmup = 0;
  options.min_runs = 7;
  options.max_time = 0.0;
  options.block_time = 1e-3;
  const Measurement m = measure([&] { g_now += 1.0; }, options, timer);
  EXPECT_EQ(m.samples.size(), 9u); // 7 rounded up to whole batches of 3
  EXPECT_EQ(m.block_size, 1);
}

TEST(Measure, MinTimeKeepsSampling) {
  g_now = 0;
  FakeTimer timer;
  MeasureOptions options;
  options.warmup = 0;
  options.min_runs = 1;
  options.min_time = 0.095;
  options.block_time = 0.01;
  const Measurement m = measure([&] { g_now += 0.01; }, options, timer);
  EXPECT_GE(m.total_time, 0.095);
  EXPECT_EQ(m.samples.size(), 12u); // 10 needed, whole batches of 3
}

TEST(MeasureCold, FlushBeforeEveryTimedCallOutsideTheTimer) {
  g_now = 0;
  FakeTimer timer;
  int flushes = 0, calls = 0;
  MeasureOptions options;
  options.warmup = 2;
  options.min_runs = 6;
  options.min_time = 0;
  const Measurement m = measure_cold(
      [&] {
        g_now += 1e-3;
        ++calls;
      },
      [&] {
        g_now += 5.0;
        ++flushes;
      },
      options, timer);
  EXPECT_EQ(m.block_size, 1);
  ASSERT_EQ(m.samples.size(), 6u);
  for (double s : m.samples)
    EXPECT_NEAR(s, 1e-3, 1e-12); // the 5 s flushes are not timed
  EXPECT_EQ(flushes, calls);
}

TEST(Measure, InterruptedBatchesAreTakenAgainWithinABound) {
  g_now = 0;
  FakeTimer timer; // batches of 3 blocks
  MeasureOptions options;
  options.warmup = 0;
  options.min_runs = 6;
  options.min_time = 0.0;
  options.block_time = 1e-3;
  // The process is "interrupted" during every other batch, and those batches run 10x slow.
  std::int64_t switches = 0;
  std::int64_t batch = 0;
  bool slow = false;
  bool before = true;
  options.interruptions = [&] {
    // Called once before and once after each batch (and never elsewhere).
    if (before) {
      slow = (batch++ % 2) == 1;
    } else if (slow) {
      ++switches;
    }
    before = !before;
    return switches;
  };
  const Measurement m = measure([&] { g_now += slow ? 1e-5 : 1e-6; }, options, timer);
  // Only clean batches were kept: every sample is the undisturbed 1 us, so noise 0 stops it
  // after two clean batches; the slow batch between them was dropped.
  ASSERT_EQ(m.samples.size(), 6u);
  for (double s : m.samples)
    EXPECT_NEAR(s, 1e-6, 1e-15);
  EXPECT_EQ(m.discarded, 3);
  // What the dropped batch cost: its 3 blocks of block_size slow calls.
  EXPECT_NEAR(m.retaken_time, 3.0 * static_cast<double>(m.block_size) * 1e-5, 1e-12);

  // A machine that interrupts every batch: drops stop once they outnumber the kept batches
  // plus min_runs, and the measurement still ends, with every drop counted.
  g_now = 0;
  std::int64_t always = 0;
  options.interruptions = [&] { return ++always; };
  options.max_time = 0.05;
  const Measurement all = measure([&] { g_now += 1e-6; }, options, timer);
  // Dropped while drops < kept + min_runs: 6 drops, keep, drop, keep; then 6 identical samples
  // have noise 0 and the measurement stops. 7 batches of 3 blocks were dropped.
  EXPECT_EQ(all.samples.size(), 6u);
  EXPECT_EQ(all.discarded, 7 * 3);
}

// A case known to take a block a call (an earlier repetition of it): its warmup calls are timed
// one at a time, and the first within warm_tolerance over the known time ends the warmup.
TEST(Measure, AKnownCallWarmAtTheFirstCallSkipsTheRestOfTheWarmup) {
  g_now = 0;
  FakeTimer timer;
  std::int64_t calls = 0;
  MeasureOptions options;
  options.warmup = 2;
  options.min_runs = 3;
  options.min_time = 0.0;
  options.block_time = 1e-3;
  options.known = {1, 2e-3};
  const Measurement warm = measure(
      [&] {
        g_now += 2.06e-3; // 3% over the known time per call: warm
        ++calls;
      },
      options, timer);
  EXPECT_TRUE(warm.warm_at_first_call);
  EXPECT_EQ(warm.block_size, 1);
  EXPECT_EQ(warm.warmup_calls, 1);
  EXPECT_EQ(calls, 1 + 3);

  // A first call 10% over: a second is made, and then the timed blocks, whatever it shows (as
  // many calls as the full warmup makes).
  for (const double second : {2e-3, 2.5e-3}) {
    g_now = 0;
    calls = 0;
    const Measurement m = measure([&] { g_now += calls++ == 0 ? 2.2e-3 : second; }, options, timer);
    EXPECT_FALSE(m.warm_at_first_call);
    EXPECT_EQ(m.block_size, 1);
    EXPECT_EQ(m.warmup_calls, 2);
    EXPECT_EQ(calls, 2 + 3);
  }
}

// What the known calibration does not cover gets the full warmup and calibration: a case of
// several calls a block, a call now shorter than a block (its calls counted as warmup too), and
// --warm-tolerance 0.
TEST(Measure, WhatTheKnownCallDoesNotCoverGetsTheFullWarmup) {
  MeasureOptions options;
  options.warmup = 2;
  options.min_runs = 3;
  options.min_time = 0.0;
  options.block_time = 1e-3;
  {
    g_now = 0;
    FakeTimer timer;
    std::vector<std::int64_t> runs;
    options.known = {1000, 1e-6};
    const Measurement m = measure_repeated(
        [&](std::int64_t n) {
          runs.push_back(n);
          g_now += 1e-6 * static_cast<double>(n);
        },
        options, timer);
    EXPECT_FALSE(m.warm_at_first_call);
    ASSERT_FALSE(runs.empty());
    EXPECT_EQ(runs.front(), 1); // warmup - 1, then the search from one call up
  }
  {
    g_now = 0;
    FakeTimer timer;
    options.known = {1, 1e-4};
    const Measurement m = measure([&] { g_now += 0.5e-4; }, options, timer);
    EXPECT_FALSE(m.warm_at_first_call);
    EXPECT_GE(static_cast<double>(m.block_size) * 0.5e-4, options.block_time * (1 - 1e-9));
  }
  {
    g_now = 0;
    FakeTimer timer;
    std::int64_t calls = 0;
    options.known = {1, 2e-3};
    options.warm_tolerance = 0;
    const Measurement m = measure(
        [&] {
          g_now += 2e-3;
          ++calls;
        },
        options, timer);
    EXPECT_FALSE(m.warm_at_first_call);
    EXPECT_EQ(m.warmup_calls, 2);
    EXPECT_EQ(calls, 2 + 3);
  }
}

// A one-thread case's interrupted batch is kept when its thread lost a negligible share of the
// batch off the CPU, and taken again otherwise (the thread's CPU clock faked: read once before
// and once after each batch).
TEST(Measure, AnInterruptedBatchThatLostNoTimeIsKept) {
  for (const bool lost : {false, true}) {
    g_now = 0;
    FakeTimer timer;
    MeasureOptions options;
    options.warmup = 0;
    options.min_runs = 6;
    options.min_time = 0.0;
    options.block_time = 1e-3;
    std::int64_t switches = 0;
    options.interruptions = [&] { return ++switches; }; // every batch interrupted
    int reads = 0;
    // After a batch: the thread ran for far longer than the wall clock (nothing lost), or not at
    // all (all of it lost).
    options.thread_cpu_seconds = [&] { return reads++ % 2 == 0 ? 0.0 : (lost ? -1.0 : 1e9); };
    const Measurement m = measure([&] { g_now += 1e-6; }, options, timer);
    EXPECT_EQ(m.samples.size(), 6u);
    if (lost) {
      EXPECT_GT(m.discarded, 0);
      EXPECT_EQ(m.interrupted_kept, 0);
    } else {
      EXPECT_EQ(m.discarded, 0);
      EXPECT_EQ(m.interrupted_kept, 2); // two batches of 3 blocks
    }
  }
}

// How a CUDA case is timed (gpu_timing.hpp), decided without a GPU.
TEST(GpuTiming, ACallTimedAloneRunsEagerBehindTheGateUnlessItWaits) {
  // Hot: graph replays, unless no graph may hold the call.
  EXPECT_EQ(choose_gpu_timing(false, "", "").how, GpuTiming::graph);
  const GpuTimingChoice random =
      choose_gpu_timing(false, "", "the call draws random numbers (randint)");
  EXPECT_EQ(random.how, GpuTiming::batch);
  EXPECT_EQ(random.why, "the call draws random numbers (randint)");
  // Alone (in-place or cold): the eager call behind the launch gate, graph or no graph.
  EXPECT_EQ(choose_gpu_timing(true, "", "").how, GpuTiming::eager_gated);
  EXPECT_EQ(choose_gpu_timing(true, "", "the call draws random numbers (randint)").how,
            GpuTiming::eager_gated);
  // A call that waits for the device would hold the gate open: the batch time, saying why,
  // alone or not.
  for (const bool alone : {true, false}) {
    const GpuTimingChoice waits =
        choose_gpu_timing(alone, "the call waits for the device (nonzero)",
                          "the call waits for the device (nonzero)");
    EXPECT_EQ(waits.how, GpuTiming::batch);
    EXPECT_EQ(waits.why, "the call waits for the device (nonzero)");
  }
}

TEST(GpuTiming, AReplayHoldsHalfAMillisecondOfCalls) {
  EXPECT_EQ(calls_per_replay(10e-6), 50);
  EXPECT_EQ(calls_per_replay(1e-3), 1);   // a long call: one a replay
  EXPECT_EQ(calls_per_replay(1e-9), 512); // at most 512
  EXPECT_EQ(calls_per_replay(0.0), 1);    // nothing measured: one
}

} // namespace
} // namespace opbench::measure
