#include "opbench/stats/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace opbench::stats {
namespace {

// Number of arrangements giving each U, for samples of sizes m and n: the coefficients of the
// Gaussian binomial coefficient [m + n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
std::vector<double> u_counts(std::size_t m, std::size_t n) {
  std::vector<double> c(m * n + 1, 0.0);
  c[0] = 1.0;
  std::size_t degree = 0; // of the polynomial so far
  for (std::size_t i = 1; i <= m; ++i) {
    // Multiply by (1 - q^(n+i)), descending so each term reads the old coefficients; terms above
    // m * n are dropped: the exact division below never reads them.
    const std::size_t shift = n + i;
    const std::size_t top = std::min(degree + shift, c.size() - 1);
    for (std::size_t k = top; k >= shift; --k)
      c[k] -= c[k - shift];
    // Divide by (1 - q^i): the quotient's coefficients, ascending.
    for (std::size_t k = i; k < c.size(); ++k)
      c[k] += c[k - i];
    degree += n;
  }
  return c;
}

} // namespace

UTestResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  UTestResult result;
  const std::size_t n1 = x.size(), n2 = y.size();
  if (n1 == 0 || n2 == 0)
    return result;

  // Ranks of the pooled sample, ties get their average rank.
  std::vector<std::pair<double, int>> pooled;
  pooled.reserve(n1 + n2);
  for (double v : x)
    pooled.emplace_back(v, 0);
  for (double v : y)
    pooled.emplace_back(v, 1);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  const std::size_t n = n1 + n2;
  double rank_sum_x = 0.0;
  double tie_term = 0.0; // sum of t^3 - t over tie groups
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first)
      ++j;
    const double average_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    for (std::size_t k = i; k < j; ++k) {
      if (pooled[k].second == 0)
        rank_sum_x += average_rank;
    }
    i = j;
  }
  const double d1 = static_cast<double>(n1), d2 = static_cast<double>(n2);
  result.u = rank_sum_x - d1 * (d1 + 1.0) / 2.0;
  const double u_max = std::max(result.u, d1 * d2 - result.u);

  if (tie_term == 0.0 && std::min(n1, n2) < 8 && std::max(n1, n2) <= 200) {
    const std::vector<double> counts = u_counts(std::min(n1, n2), std::max(n1, n2));
    const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    // P(U >= u_max), U symmetric: the two-sided p is twice that.
    double upper = 0.0;
    for (std::size_t k = static_cast<std::size_t>(std::llround(u_max)); k < counts.size(); ++k) {
      upper += counts[k];
    }
    result.p_value = std::min(1.0, 2.0 * upper / total);
    result.exact = true;
    return result;
  }

  const double dn = static_cast<double>(n);
  const double mu = d1 * d2 / 2.0;
  const double variance = d1 * d2 / 12.0 * ((dn + 1.0) - tie_term / (dn * (dn - 1.0)));
  if (variance <= 0.0)
    return result; // every value tied: no evidence of a difference
  const double z = (u_max - mu - 0.5) / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return result;
}

ShiftInterval shift_interval(const std::vector<double>& x, const std::vector<double>& y,
                             double confidence) {
  ShiftInterval out;
  const double inf = std::numeric_limits<double>::infinity();
  out.low = -inf;
  out.high = inf;
  const std::size_t n = x.size(), m = y.size();
  if (n == 0 || m == 0) {
    out.estimate = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  std::vector<double> d;
  d.reserve(n * m);
  for (double a : x)
    for (double b : y)
      d.push_back(b - a);
  std::sort(d.begin(), d.end());
  const std::size_t total = d.size();
  out.estimate = total % 2 == 1 ? d[total / 2] : (d[total / 2 - 1] + d[total / 2]) / 2;
  const double tail = (1 - confidence) / 2;
  std::size_t k = 0; // how many differences each end leaves out
  if (total <= 10000) {
    const std::vector<double> counts = u_counts(std::min(n, m), std::max(n, m));
    const double all = std::accumulate(counts.begin(), counts.end(), 0.0);
    double below = 0; // P(U <= k - 1) * all
    while (k < counts.size() && (below + counts[k]) / all <= tail)
      below += counts[k++];
  } else {
    // U's mean n m / 2 and variance n m (n + m + 1) / 12; z for the tail by bisection.
    double lo = 0, hi = 10;
    for (int i = 0; i < 100; ++i) {
      const double z = (lo + hi) / 2;
      (0.5 * std::erfc(z / std::sqrt(2.0)) > tail ? lo : hi) = z;
    }
    const double mean = static_cast<double>(total) / 2;
    const double sd = std::sqrt(static_cast<double>(total) * static_cast<double>(n + m + 1) / 12);
    const double cut = std::floor(mean - lo * sd);
    k = cut > 0 ? static_cast<std::size_t>(cut) : 0;
  }
  if (k >= 1 && 2 * k <= total) {
    out.low = d[k - 1];
    out.high = d[total - k];
  }
  return out;
}

} // namespace opbench::stats
