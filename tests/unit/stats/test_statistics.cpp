#include <gtest/gtest.h>

#include <cmath>

#include "opbench/stats/statistics.hpp"

namespace opbench::stats {

// Values worked out by hand; percentiles by linear interpolation at rank (n - 1) * q.
TEST(Statistics, FiveSamples) {
  const std::vector<double> x{4, 1, 3, 2, 5};
  EXPECT_DOUBLE_EQ(mean(x), 3.0);
  EXPECT_DOUBLE_EQ(median(x), 3.0);
  EXPECT_DOUBLE_EQ(percentile(x, 0.9), 4.6);   // rank 3.6: 4 + 0.6 * (5 - 4)
  EXPECT_DOUBLE_EQ(percentile(x, 0.99), 4.96); // rank 3.96
  EXPECT_DOUBLE_EQ(percentile(x, 0.25), 2.0);
  EXPECT_DOUBLE_EQ(iqr(x), 2.0);               // 4 - 2
  EXPECT_DOUBLE_EQ(stddev(x), std::sqrt(2.5)); // sum of squares 10 / (n - 1)
  EXPECT_DOUBLE_EQ(cv(x), std::sqrt(2.5) / 3.0);
}

TEST(Statistics, EvenCountMedianInterpolates) {
  const std::vector<double> x{1, 2, 3, 10};
  EXPECT_DOUBLE_EQ(median(x), 2.5);
  EXPECT_DOUBLE_EQ(percentile(x, 0.9), 7.9); // rank 2.7: 3 + 0.7 * 7
}

TEST(Statistics, OneSample) {
  const Summary s = summarize({7.0});
  EXPECT_EQ(s.count, 1u);
  EXPECT_DOUBLE_EQ(s.mean, 7.0);
  EXPECT_DOUBLE_EQ(s.median, 7.0);
  EXPECT_DOUBLE_EQ(s.p99, 7.0);
  EXPECT_DOUBLE_EQ(s.stddev, 0.0);
  EXPECT_DOUBLE_EQ(s.cv, 0.0);
  EXPECT_DOUBLE_EQ(s.iqr, 0.0);
}

TEST(Statistics, IdenticalSamples) {
  const Summary s = summarize({2.0, 2.0, 2.0});
  EXPECT_DOUBLE_EQ(s.min, 2.0);
  EXPECT_DOUBLE_EQ(s.max, 2.0);
  EXPECT_DOUBLE_EQ(s.stddev, 0.0);
  EXPECT_DOUBLE_EQ(s.iqr, 0.0);
}

TEST(Statistics, EmptyIsNaN) {
  const Summary s = summarize({});
  EXPECT_EQ(s.count, 0u);
  EXPECT_TRUE(std::isnan(s.mean));
  EXPECT_TRUE(std::isnan(s.median));
  EXPECT_TRUE(std::isnan(s.stddev));
  EXPECT_TRUE(std::isnan(percentile({}, 0.5)));
}

TEST(Statistics, ZeroMeanCvIsNaN) {
  EXPECT_TRUE(std::isnan(cv({-1.0, 1.0})));
}

TEST(Statistics, SummaryMatchesTheSingleFunctions) {
  const std::vector<double> x{0.5, 0.1, 0.9, 0.3, 0.7, 0.2};
  const Summary s = summarize(x);
  EXPECT_DOUBLE_EQ(s.median, median(x));
  EXPECT_DOUBLE_EQ(s.p50, s.median);
  EXPECT_DOUBLE_EQ(s.p90, percentile(x, 0.9));
  EXPECT_DOUBLE_EQ(s.stddev, stddev(x));
  EXPECT_DOUBLE_EQ(s.iqr, iqr(x));
  EXPECT_DOUBLE_EQ(s.min, 0.1);
  EXPECT_DOUBLE_EQ(s.max, 0.9);
}

// Coverage of [x(k), x(n+1-k)] is 1 - 2 P(Bin(n, 1/2) <= k - 1), worked out by hand.
TEST(MedianInterval, FiveValuesGiveMinToMaxAt93Point75Percent) {
  const MedianInterval i = median_interval({5, 1, 4, 2, 3});
  EXPECT_EQ(i.count, 5u);
  EXPECT_DOUBLE_EQ(i.median, 3.0);
  EXPECT_DOUBLE_EQ(i.low, 1.0);
  EXPECT_DOUBLE_EQ(i.high, 5.0);
  EXPECT_DOUBLE_EQ(i.coverage, 1.0 - 2.0 / 32.0); // P(B <= 0) = 1/32
}

TEST(MedianInterval, TenValuesDropOneAtEachEnd) {
  // P(B <= 1) = 11/1024: k = 2 covers 1 - 22/1024 = 0.978515625; P(B <= 2) = 56/1024 makes
  // k = 3 cover only 0.890625 < 0.95.
  const MedianInterval i = median_interval({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(i.median, 5.5);
  EXPECT_DOUBLE_EQ(i.low, 2.0);
  EXPECT_DOUBLE_EQ(i.high, 9.0);
  EXPECT_DOUBLE_EQ(i.coverage, 1.0 - 22.0 / 1024.0);
  // At 80% confidence k = 3 is enough.
  const MedianInterval loose = median_interval({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 0.80);
  EXPECT_DOUBLE_EQ(loose.low, 3.0);
  EXPECT_DOUBLE_EQ(loose.high, 8.0);
  EXPECT_DOUBLE_EQ(loose.coverage, 0.890625);
}

TEST(MedianInterval, OneValueAndNone) {
  const MedianInterval one = median_interval({2.5});
  EXPECT_DOUBLE_EQ(one.median, 2.5);
  EXPECT_DOUBLE_EQ(one.low, 2.5);
  EXPECT_DOUBLE_EQ(one.high, 2.5);
  EXPECT_DOUBLE_EQ(one.coverage, 0.0);
  const MedianInterval none = median_interval({});
  EXPECT_EQ(none.count, 0u);
  EXPECT_TRUE(std::isnan(none.median));
  EXPECT_TRUE(std::isnan(none.coverage));
}

TEST(RelativeSpread, RangeOverMedian) {
  EXPECT_DOUBLE_EQ(relative_spread({1.0, 1.1, 0.9}), 0.2);
  EXPECT_DOUBLE_EQ(relative_spread({3.0}), 0.0);
  EXPECT_TRUE(std::isnan(relative_spread({})));
}

TEST(UsualLevel, TheBandThatHoldsMostReadings) {
  // A host that gave ~33 GB/s most of the time and ~55 GB/s now and then (readings in GB/s).
  const std::vector<double> readings = {33, 32, 55, 34, 31, 56, 33, 35, 54, 32};
  EXPECT_DOUBLE_EQ(usual_level(readings, 0.2), 33.0); // the band [31, 35] holds 7: median 33
  EXPECT_TRUE(is_usual(39.0, 33.0, 0.2));
  EXPECT_FALSE(is_usual(55.0, 33.0, 0.2));
  EXPECT_FALSE(is_usual(27.0, 33.0, 0.2));      // slower than usual counts too
  EXPECT_TRUE(is_usual(33.0 * 1.2, 33.0, 0.2)); // the edge is in
  EXPECT_TRUE(is_usual(33.0 / 1.2, 33.0, 0.2));
  // When the faster level holds more readings, it is the usual one.
  EXPECT_DOUBLE_EQ(usual_level({33, 55, 56, 54, 32}, 0.2), 55.0);
  // A tie: the lower band.
  EXPECT_DOUBLE_EQ(usual_level({10, 11, 30, 31}, 0.1), 10.5);
  // Zeros (no reading) and NaN are not readings.
  EXPECT_DOUBLE_EQ(usual_level({0, 40, std::nan("")}, 0.2), 40.0);
  EXPECT_TRUE(std::isnan(usual_level({}, 0.2)));
  EXPECT_TRUE(std::isnan(usual_level({0.0}, 0.2)));
  EXPECT_FALSE(is_usual(0.0, 33.0, 0.2));
  EXPECT_FALSE(is_usual(33.0, 0.0, 0.2));
}

} // namespace opbench::stats
