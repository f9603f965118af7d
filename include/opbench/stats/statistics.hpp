#pragma once
// Statistics over samples, as pure functions. Samples are seconds per call, but nothing here
// depends on the unit. Percentiles use linear interpolation between closest ranks (numpy's
// default, "linear"): the q-quantile of sorted x[0..n-1] sits at rank (n - 1) * q.

#include <cstddef>
#include <limits>
#include <vector>

namespace opbench::stats {

// "No value": what the functions below return where there is nothing to compute from.
inline constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

// Arithmetic mean; NaN when empty.
double mean(const std::vector<double>& samples);

// q-quantile for q in [0, 1] by linear interpolation; NaN when empty.
double percentile(std::vector<double> samples, double q);

// Median (= percentile 0.5); NaN when empty.
double median(const std::vector<double>& samples);

// Sample standard deviation (divides by n - 1); 0 for one sample, NaN when empty.
double stddev(const std::vector<double>& samples);

// Coefficient of variation, stddev / mean; NaN when empty or when the mean is 0.
double cv(const std::vector<double>& samples);

// Interquartile range, percentile 0.75 - percentile 0.25; NaN when empty.
double iqr(const std::vector<double>& samples);

// Everything above at once (one sort).
struct Summary {
  std::size_t count = 0;
  double mean = 0;
  double median = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double min = 0;
  double max = 0;
  double stddev = 0;
  double cv = 0;
  double iqr = 0;
};

// Summary of `samples`; every field but count is NaN when empty.
Summary summarize(const std::vector<double>& samples);

// A distribution-free confidence interval of the median of `values` (one value per repetition,
// process or night): the order statistics [x(k), x(n+1-k)] (1-based, sorted) with the largest k
// whose exact coverage 1 - 2 P(Binomial(n, 1/2) <= k - 1) is at least `confidence`. When even
// [min, max] covers less (n <= 5 for 95%), it is [min, max] with its own, lower coverage.
struct MedianInterval {
  std::size_t count = 0;
  double median = 0;   // NaN when empty
  double low = 0;      // NaN when empty
  double high = 0;     // NaN when empty
  double coverage = 0; // exact coverage of [low, high]: 0 for one value, NaN when empty
};
MedianInterval median_interval(const std::vector<double>& values, double confidence = 0.95);

// (max - min) / median: the relative spread of a few values (repetition medians); 0 for one
// value, NaN when empty or when the median is 0.
double relative_spread(const std::vector<double>& values);

// The usual level of positive readings that sit at a few levels (a shared host's memory
// bandwidth): of the bands [x, x * (1 + tolerance)^2], the one that holds the most readings
// (the lowest such band on a tie), and the median of the readings in it. A reading r is usual
// when |log(r / level)| <= log(1 + tolerance). NaN when there is no positive reading.
double usual_level(const std::vector<double>& readings, double tolerance);
bool is_usual(double reading, double level, double tolerance);

} // namespace opbench::stats
