#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "opbench/stats/distributions.hpp"

namespace opbench::stats {

// Closed forms: df 1 is Cauchy, F(t) = 1/2 + atan(t)/pi; df 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)).
TEST(StudentT, ClosedFormsAndTableValues) {
  EXPECT_NEAR(student_t_cdf(1.0, 1.0), 0.75, 1e-12);
  EXPECT_NEAR(student_t_cdf(-3.0, 1.0), 0.5 + std::atan(-3.0) / M_PI, 1e-12);
  EXPECT_NEAR(student_t_cdf(1.0, 2.0), 0.5 + 1.0 / (2.0 * std::sqrt(3.0)), 1e-12);
  EXPECT_NEAR(student_t_cdf(0.0, 7.0), 0.5, 1e-15);
  // Tables: t(0.975, 10) = 2.228139, t(0.995, 4) = 4.604095.
  EXPECT_NEAR(student_t_quantile(0.975, 10.0), 2.228139, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.995, 4.0), 4.604095, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.025, 10.0), -2.228139, 1e-6);
  // Infinite df: the normal distribution.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_NEAR(student_t_cdf(1.959964, inf), 0.975, 1e-6);
  EXPECT_NEAR(two_sided_t_p(2.228139, 10.0), 0.05, 1e-6);
  EXPECT_NEAR(two_sided_t_p(0.0, 3.0), 1.0, 1e-15);
}

TEST(BenjaminiHochberg, StepUpRejectsTheSmallestK) {
  // Sorted 0.005, 0.01, 0.03, 0.04, 0.5 against k q / 5 = 0.01, 0.02, 0.03, 0.04, 0.05: k = 4.
  const auto r = benjamini_hochberg({0.01, 0.04, 0.03, 0.005, 0.5}, 0.05);
  EXPECT_EQ(r, (std::vector<bool>{true, true, true, true, false}));
  // Step-up: 0.03 fails its own bound (0.025) but is rejected with 0.04 (<= 0.05); NaN is left out
  // of m and never rejected.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(benjamini_hochberg({0.03, 0.04, nan}, 0.05), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(benjamini_hochberg({0.2, 0.3}, 0.05), (std::vector<bool>{false, false}));
  EXPECT_TRUE(benjamini_hochberg({}, 0.05).empty());
}

} // namespace opbench::stats
