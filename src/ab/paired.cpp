#include "opbench/ab/paired.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "opbench/stats/distributions.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::ab {
namespace {

using stats::k_nan;
// The share of pairs trimmed from each end (Wilcox's usual 20%).
constexpr double k_trim = 0.2;

bool usable(double seconds) {
  return std::isfinite(seconds) && seconds > 0;
}

// The rounds' log ratios where both sides have a time.
std::vector<double> log_ratios(const PairedCase& c) {
  std::vector<double> out;
  const std::size_t rounds = std::min(c.base.size(), c.new_times.size());
  for (std::size_t r = 0; r < rounds; ++r) {
    if (usable(c.base[r]) && usable(c.new_times[r]))
      out.push_back(std::log(c.new_times[r] / c.base[r]));
  }
  return out;
}

// The trimmed mean of the log ratios, its standard error and degrees of freedom (Yuen's: the
// winsorized standard deviation over (1 - 2 g / n) sqrt(n), n - 2 g - 1 degrees of freedom).
struct Moments {
  double mean = k_nan;
  double se = k_nan;
  double df = 0;
};

Moments moments_of(std::vector<double> d) {
  Moments m;
  const std::size_t n = d.size();
  if (n < 2)
    return m;
  std::sort(d.begin(), d.end());
  std::size_t g = static_cast<std::size_t>(std::floor(k_trim * static_cast<double>(n)));
  while (g > 0 && n - 2 * g < 2)
    --g;
  m.mean = stats::mean(std::vector<double>(d.begin() + static_cast<std::ptrdiff_t>(g),
                                           d.end() - static_cast<std::ptrdiff_t>(g)));
  for (std::size_t i = 0; i < g; ++i) {
    d[i] = d[g];
    d[n - 1 - i] = d[n - 1 - g];
  }
  const double kept = 1 - 2 * static_cast<double>(g) / static_cast<double>(n);
  m.se = stats::stddev(d) / (kept * std::sqrt(static_cast<double>(n)));
  m.df = static_cast<double>(n - 2 * g - 1);
  return m;
}

// [mean - q se, mean + q se] at `level` (two-sided); a zero standard error gives the point.
std::pair<double, double> interval(const Moments& m, double level) {
  if (m.se == 0)
    return {m.mean, m.mean};
  const double q = stats::student_t_quantile(0.5 + level / 2, m.df);
  return {m.mean - q * m.se, m.mean + q * m.se};
}

// The p-value of "the change lies past [down, up]" (two-sided: twice the nearer one-sided test).
double past_threshold_p(const Moments& m, double down, double up) {
  if (m.se == 0)
    return m.mean > up || m.mean < down ? 0.0 : 1.0;
  const double slower = 1 - stats::student_t_cdf((m.mean - up) / m.se, m.df);
  const double faster = stats::student_t_cdf((m.mean - down) / m.se, m.df);
  return std::min(1.0, 2 * std::min(slower, faster));
}

double relative(double log_change) {
  return std::exp(std::fabs(log_change)) - 1;
}

} // namespace

void judge_paired(std::vector<PairedCase>& cases, const PairedOptions& options) {
  const double up = std::log1p(options.threshold);
  const double down = options.threshold < 1 ? std::log1p(-options.threshold)
                                            : -std::numeric_limits<double>::infinity();
  std::vector<Moments> moments(cases.size());
  std::vector<double> p_values(cases.size(), k_nan);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    PairedCase& c = cases[i];
    const std::vector<double> d = log_ratios(c);
    c.pairs = d.size();
    c.verdict = results::Verdict::unknown;
    c.reason.clear();
    c.ratio = d.empty() ? k_nan : std::exp(d.size() < 2 ? d[0] : moments_of(d).mean);
    c.low = c.high = c.level = c.p_value = c.seeable = k_nan;
    const std::size_t needed = std::max<std::size_t>(options.min_rounds, 2);
    if (d.size() < needed) {
      c.reason = std::to_string(d.size()) + " paired round(s); the verdict needs " +
                 std::to_string(needed);
      continue;
    }
    moments[i] = moments_of(d);
    p_values[i] = past_threshold_p(moments[i], down, up);
    c.p_value = p_values[i];
  }
  const std::vector<bool> picked = stats::benjamini_hochberg(p_values, options.fdr);
  const auto tested = static_cast<double>(
      std::count_if(p_values.begin(), p_values.end(), [](double p) { return !std::isnan(p); }));
  const auto changes = static_cast<double>(std::count(picked.begin(), picked.end(), true));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    PairedCase& c = cases[i];
    if (std::isnan(p_values[i]))
      continue;
    // A picked case's interval at the adjusted level lies past the threshold (BH picked it at
    // p <= R fdr / m); the others are read at 1 - fdr.
    c.level = picked[i] ? 1 - changes * options.fdr / tested : 1 - options.fdr;
    const auto [low, high] = interval(moments[i], c.level);
    c.low = std::exp(low);
    c.high = std::exp(high);
    c.seeable = std::max(relative(low), relative(high));
    if (picked[i] && low > up) {
      c.verdict = results::Verdict::slower;
    } else if (picked[i] && high < down) {
      c.verdict = results::Verdict::faster;
    } else if (low >= down && high <= up) {
      c.verdict = results::Verdict::same;
    } else {
      c.reason = fmt::format("its interval reaches a change of {:.1f}% (the threshold: {:g}%)",
                             c.seeable * 100, options.threshold * 100);
    }
  }
}

SuiteRatio suite_ratio(const std::vector<PairedCase>& cases, const PairedOptions& options,
                       std::size_t first_rounds) {
  SuiteRatio out;
  out.ratio = out.low = out.high = k_nan;
  std::size_t rounds = 0;
  for (const auto& c : cases)
    rounds = std::max({rounds, c.base.size(), c.new_times.size()});
  if (first_rounds > 0)
    rounds = std::min(rounds, first_rounds);
  std::vector<double> per_round(rounds, 0.0);
  for (const auto& c : cases) {
    if (c.base.size() < rounds || c.new_times.size() < rounds)
      continue;
    bool complete = true;
    for (std::size_t r = 0; r < rounds && complete; ++r)
      complete = usable(c.base[r]) && usable(c.new_times[r]);
    if (!complete)
      continue;
    ++out.cases;
    for (std::size_t r = 0; r < rounds; ++r)
      per_round[r] += std::log(c.new_times[r] / c.base[r]);
  }
  out.rounds = rounds;
  if (out.cases == 0 || rounds < 2)
    return out;
  for (double& d : per_round)
    d /= static_cast<double>(out.cases);
  const Moments m = moments_of(per_round);
  const auto [low, high] = interval(m, 1 - options.fdr);
  out.ratio = std::exp(m.mean);
  out.low = std::exp(low);
  out.high = std::exp(high);
  return out;
}

} // namespace opbench::ab
