#include "opbench/stats/distributions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace opbench::stats {
namespace {

// Continued fraction of the incomplete beta function (modified Lentz).
double beta_continued_fraction(double a, double b, double x) {
  constexpr int k_iterations = 300;
  constexpr double k_epsilon = 1e-15;
  constexpr double k_tiny = 1e-300;
  const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::abs(d) < k_tiny)
    d = k_tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= k_iterations; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < k_tiny)
      d = k_tiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < k_tiny)
      c = k_tiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < k_tiny)
      d = k_tiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < k_tiny)
      c = k_tiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1.0) < k_epsilon)
      break;
  }
  return h;
}

// Regularized incomplete beta I_x(a, b).
double incomplete_beta(double a, double b, double x) {
  if (x <= 0.0)
    return 0.0;
  if (x >= 1.0)
    return 1.0;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0))
    return front * beta_continued_fraction(a, b, x) / a;
  return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

} // namespace

double student_t_cdf(double t, double df) {
  if (std::isnan(t) || !(df > 0))
    return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(df))
    return 0.5 * std::erfc(-t / std::sqrt(2.0));
  // P(|T| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2).
  const double tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
  return t > 0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0))
    return std::numeric_limits<double>::quiet_NaN();
  double low = -1e3, high = 1e3;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (low + high);
    (student_t_cdf(mid, df) < p ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

double two_sided_t_p(double t, double df) {
  if (std::isnan(t))
    return std::numeric_limits<double>::quiet_NaN();
  return std::min(1.0, 2.0 * student_t_cdf(-std::abs(t), df));
}

std::vector<bool> benjamini_hochberg(const std::vector<double>& p_values, double q) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p_values.size(); ++i) {
    if (!std::isnan(p_values[i]))
      order.push_back(i);
  }
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  const double m = static_cast<double>(order.size());
  std::size_t rejected = 0;
  for (std::size_t k = 1; k <= order.size(); ++k) {
    if (p_values[order[k - 1]] <= static_cast<double>(k) * q / m)
      rejected = k;
  }
  std::vector<bool> out(p_values.size(), false);
  for (std::size_t k = 0; k < rejected; ++k)
    out[order[k]] = true;
  return out;
}

} // namespace opbench::stats
