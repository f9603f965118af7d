#include <gtest/gtest.h>

#include "opbench/exec/measure.hpp"

namespace opbench::exec {
namespace {

// A clock that only moves when the fake operator runs.
double g_now = 0;

class FakeTimer {
 public:
  void start() { m_start = g_now; }
  void stop() { m_stop = g_now; }
  double seconds() const { return m_stop - m_start; }

 private:
  double m_start = 0;
  double m_stop = 0;
};

TEST(Measure, BlockSizeMakesBlocksLastBlockTime) {
  g_now = 0;
  std::int64_t calls = 0;
  MeasureOptions options;
  options.warmup = 2;
  options.min_runs = 5;
  options.min_time = 0.0;
  options.block_time = 1e-3;
  const Measurement m = measure<FakeTimer>([&] { g_now += 1e-6; ++calls; }, options);
  EXPECT_GE(static_cast<double>(m.block_size) * 1e-6, options.block_time * (1 - 1e-9));
  ASSERT_EQ(m.samples.size(), 5u);  // identical samples: noise 0 reached at min_runs
  for (double s : m.samples) EXPECT_NEAR(s, 1e-6, 1e-15);
  EXPECT_TRUE(m.noise_reached);
  EXPECT_EQ(calls, m.warmup_calls + 5 * m.block_size);
  EXPECT_NEAR(m.total_time, 5.0 * static_cast<double>(m.block_size) * 1e-6, 1e-12);
}

TEST(Measure, NoisyCaseRunsUntilMaxTime) {
  g_now = 0;
  std::int64_t i = 0;
  MeasureOptions options;
  options.warmup = 0;
  options.min_runs = 3;
  options.min_time = 0.0;
  options.max_time = 0.5;
  options.target_noise = 0.0001;
  options.block_time = 0.01;
  // Alternating 10 ms and 30 ms calls: every block is one call, cv stays far above target.
  const Measurement m = measure<FakeTimer>([&] { g_now += (i++ % 2 == 0) ? 0.01 : 0.03; }, options);
  EXPECT_EQ(m.block_size, 1);
  EXPECT_FALSE(m.noise_reached);
  EXPECT_GE(m.total_time, options.max_time);
  EXPECT_LT(m.total_time, options.max_time + 0.031);
}

TEST(Measure, MinRunsWinsOverMaxTime) {
  g_now = 0;
  MeasureOptions options;
  options.warmup = 0;
  options.min_runs = 7;
  options.max_time = 0.0;
  options.block_time = 1e-3;
  const Measurement m = measure<FakeTimer>([&] { g_now += 1.0; }, options);
  EXPECT_EQ(m.samples.size(), 7u);
  EXPECT_EQ(m.block_size, 1);
}

TEST(Measure, MinTimeKeepsSampling) {
  g_now = 0;
  MeasureOptions options;
  options.warmup = 0;
  options.min_runs = 1;
  options.min_time = 0.095;
  options.block_time = 0.01;
  const Measurement m = measure<FakeTimer>([&] { g_now += 0.01; }, options);
  EXPECT_GE(m.total_time, 0.095);
  EXPECT_EQ(m.samples.size(), 10u);
}

}  // namespace
}  // namespace opbench::exec
