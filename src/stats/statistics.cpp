#include "opbench/stats/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace opbench::stats {
namespace {

// Quantile of already sorted samples.
double sorted_percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty())
    return k_nan;
  q = std::clamp(q, 0.0, 1.0);
  const double rank = q * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(rank));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = rank - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

} // namespace

double mean(const std::vector<double>& samples) {
  if (samples.empty())
    return k_nan;
  return std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
}

double percentile(std::vector<double> samples, double q) {
  std::sort(samples.begin(), samples.end());
  return sorted_percentile(samples, q);
}

double median(const std::vector<double>& samples) {
  return percentile(samples, 0.5);
}

double stddev(const std::vector<double>& samples) {
  if (samples.empty())
    return k_nan;
  if (samples.size() == 1)
    return 0.0;
  const double m = mean(samples);
  double sum_sq = 0.0;
  for (double x : samples)
    sum_sq += (x - m) * (x - m);
  return std::sqrt(sum_sq / static_cast<double>(samples.size() - 1));
}

double cv(const std::vector<double>& samples) {
  const double m = mean(samples);
  if (samples.empty() || m == 0.0)
    return k_nan;
  return stddev(samples) / m;
}

double iqr(const std::vector<double>& samples) {
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  return sorted_percentile(sorted, 0.75) - sorted_percentile(sorted, 0.25);
}

Summary summarize(const std::vector<double>& samples) {
  Summary s;
  s.count = samples.size();
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  s.mean = mean(samples);
  s.median = sorted_percentile(sorted, 0.5);
  s.p50 = s.median;
  s.p90 = sorted_percentile(sorted, 0.90);
  s.p99 = sorted_percentile(sorted, 0.99);
  s.min = sorted.empty() ? k_nan : sorted.front();
  s.max = sorted.empty() ? k_nan : sorted.back();
  s.stddev = stddev(samples);
  s.cv = cv(samples);
  s.iqr = sorted_percentile(sorted, 0.75) - sorted_percentile(sorted, 0.25);
  return s;
}

MedianInterval median_interval(const std::vector<double>& values, double confidence) {
  MedianInterval out;
  out.count = values.size();
  if (values.empty()) {
    out.median = out.low = out.high = out.coverage = k_nan;
    return out;
  }
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  out.median = sorted_percentile(sorted, 0.5);
  // tail[j] = P(B <= j) for B ~ Binomial(n, 1/2), built from the pmf C(n, j) / 2^n.
  std::vector<double> tail(n + 1);
  double pmf = std::pow(0.5, static_cast<double>(n));
  double cumulative = 0;
  for (std::size_t j = 0; j <= n; ++j) {
    cumulative += pmf;
    tail[j] = cumulative;
    pmf *= static_cast<double>(n - j) / static_cast<double>(j + 1);
  }
  auto coverage_of = [&](std::size_t k) { return std::max(0.0, 1.0 - 2.0 * tail[k - 1]); };
  std::size_t k = 1;
  while (k + 1 <= (n + 1) / 2 && coverage_of(k + 1) >= confidence)
    ++k;
  out.low = sorted[k - 1];
  out.high = sorted[n - k];
  out.coverage = coverage_of(k);
  return out;
}

double relative_spread(const std::vector<double>& values) {
  if (values.empty())
    return k_nan;
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  const double m = median(values);
  if (m == 0.0)
    return k_nan;
  return (*high - *low) / m;
}

double usual_level(const std::vector<double>& readings, double tolerance) {
  std::vector<double> sorted;
  for (double r : readings) {
    if (r > 0 && std::isfinite(r))
      sorted.push_back(r);
  }
  if (sorted.empty())
    return k_nan;
  std::sort(sorted.begin(), sorted.end());
  const double width = (1.0 + tolerance) * (1.0 + tolerance);
  std::size_t best_begin = 0, best_end = 1, end = 0;
  for (std::size_t begin = 0; begin < sorted.size(); ++begin) {
    end = std::max(end, begin + 1);
    while (end < sorted.size() && sorted[end] <= sorted[begin] * width)
      ++end;
    if (end - begin > best_end - best_begin) {
      best_begin = begin;
      best_end = end;
    }
  }
  return median(std::vector<double>(sorted.begin() + static_cast<std::ptrdiff_t>(best_begin),
                                    sorted.begin() + static_cast<std::ptrdiff_t>(best_end)));
}

bool is_usual(double reading, double level, double tolerance) {
  if (!(reading > 0) || !(level > 0))
    return false;
  return std::abs(std::log(reading / level)) <= std::log1p(tolerance) + 1e-12;
}

} // namespace opbench::stats
