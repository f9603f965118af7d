#include <gtest/gtest.h>

#include <cmath>

#include "opbench/stats/mann_whitney.hpp"

namespace opbench::stats {

// Reference values: scipy.stats.mannwhitneyu(x, y, alternative="two-sided") (scipy 1.x, method
// "auto"), printed to full precision.
TEST(MannWhitney, ExactNoOverlap) {
  const auto r = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 0.0);
  EXPECT_NEAR(r.p_value, 0.007936507936507936, 1e-15); // 2 / C(10, 5)
}

TEST(MannWhitney, ExactInterleaved) {
  const auto r = mann_whitney_u({1, 3, 5, 7}, {2, 4, 6, 8, 10});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 6.0);
  EXPECT_NEAR(r.p_value, 0.4126984126984127, 1e-14);
}

TEST(MannWhitney, TiesUseTheNormalApproximation) {
  const auto r = mann_whitney_u({1, 2, 2, 3, 3, 3}, {2, 3, 4, 4, 5, 6});
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 5.5);
  EXPECT_NEAR(r.p_value, 0.04838165749779871, 1e-12);
}

TEST(MannWhitney, LargeSamplesUseTheNormalApproximation) {
  std::vector<double> x, y;
  for (int i = 0; i < 30; ++i) {
    x.push_back(i);
    y.push_back(i + 5);
  }
  const auto r = mann_whitney_u(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 312.5);
  EXPECT_NEAR(r.p_value, 0.04274735330571392, 1e-12);
}

TEST(MannWhitney, IdenticalAndEmptySamples) {
  EXPECT_DOUBLE_EQ(mann_whitney_u({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u({}, {1, 2}).p_value, 1.0);
  const std::vector<double> same{3, 1, 2, 5, 4, 9, 7};
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same).p_value, 1.0);
}

TEST(MannWhitney, SymmetricInItsArguments) {
  const std::vector<double> x{1.1, 2.5, 3.9, 4.2, 8.8, 9.1, 0.3, 5.5, 6.1};
  const std::vector<double> y{2.2, 7.7, 9.9, 10.5, 11.0, 12.3, 6.6, 8.1, 13.4, 3.3};
  EXPECT_DOUBLE_EQ(mann_whitney_u(x, y).p_value, mann_whitney_u(y, x).p_value);
}

// R: wilcox.test(6:10, 1:5, conf.int = TRUE) gives the interval [2, 8] (achieved 96.8%) and
// the estimate 5: U <= 2 is the exact 5% two-sided region for 5 and 5 values.
TEST(ShiftInterval, MatchesRsWilcoxTestInterval) {
  const ShiftInterval s = shift_interval({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, 0.95);
  EXPECT_DOUBLE_EQ(s.low, 2);
  EXPECT_DOUBLE_EQ(s.high, 8);
  EXPECT_DOUBLE_EQ(s.estimate, 5);
}

TEST(ShiftInterval, TooFewValuesCannotBoundTheShift) {
  const ShiftInterval s = shift_interval({1, 2}, {3, 4}, 0.95); // 2 and 2: P(U = 0) = 1/6
  EXPECT_TRUE(std::isinf(s.low) && s.low < 0);
  EXPECT_TRUE(std::isinf(s.high) && s.high > 0);
  std::vector<double> x, y; // the normal approximation past 10,000 pairs: a narrow interval
  for (int i = 0; i < 120; ++i) {
    x.push_back(i % 10);
    y.push_back(i % 10 + 100);
  }
  const ShiftInterval big = shift_interval(x, y, 0.95);
  EXPECT_DOUBLE_EQ(big.estimate, 100);
  EXPECT_GE(big.low, 99);
  EXPECT_LE(big.high, 101);
}

} // namespace opbench::stats
