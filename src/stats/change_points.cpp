#include "opbench/stats/change_points.hpp"

#include <algorithm>
#include <cmath>

#include "opbench/stats/mann_whitney.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::stats {
namespace {

std::vector<double> part(const std::vector<double>& values, std::size_t begin, std::size_t end) {
  return {values.begin() + static_cast<std::ptrdiff_t>(begin),
          values.begin() + static_cast<std::ptrdiff_t>(end)};
}

void segment(const std::vector<double>& values, std::size_t begin, std::size_t end,
             const ChangePointOptions& options, std::vector<ChangePoint>& found) {
  const std::size_t m = options.min_segment;
  if (end - begin < 2 * m)
    return;
  const std::size_t splits = end - begin - 2 * m + 1;
  // The split is chosen by the standardised U statistic, comparable across splits (the test's
  // p-value is exact for small parts and approximate for larger ones, so p-values of different
  // splits are not); the chosen split's p-value is then the test's own.
  std::size_t best = 0;
  double best_z = -1;
  for (std::size_t k = begin + m; k + m <= end; ++k) {
    const double n1 = static_cast<double>(k - begin), n2 = static_cast<double>(end - k);
    const double u = mann_whitney_u(part(values, begin, k), part(values, k, end)).u;
    const double z = std::abs(u - n1 * n2 / 2) / std::sqrt(n1 * n2 * (n1 + n2 + 1) / 12);
    if (z > best_z)
      best_z = z, best = k;
  }
  const double best_p = mann_whitney_u(part(values, begin, best), part(values, best, end)).p_value;
  const double adjusted = std::min(1.0, best_p * static_cast<double>(splits));
  const double before = median(part(values, begin, best));
  const double after = median(part(values, best, end));
  if (!(adjusted < options.alpha) || !(before > 0) ||
      std::abs(after / before - 1.0) < options.effect_floor)
    return;
  found.push_back({best, before, after, adjusted});
  segment(values, begin, best, options, found);
  segment(values, best, end, options, found);
}

} // namespace

std::vector<ChangePoint> change_points(const std::vector<double>& values,
                                       const ChangePointOptions& options) {
  std::vector<ChangePoint> found;
  if (options.min_segment == 0)
    return found;
  segment(values, 0, values.size(), options, found);
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.index < b.index; });
  // The medians on either side of each change, over the final segments.
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::size_t begin = i == 0 ? 0 : found[i - 1].index;
    const std::size_t end = i + 1 < found.size() ? found[i + 1].index : values.size();
    found[i].before = median(part(values, begin, found[i].index));
    found[i].after = median(part(values, found[i].index, end));
  }
  return found;
}

} // namespace opbench::stats
