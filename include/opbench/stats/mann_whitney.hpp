#pragma once
// Two-sided Mann-Whitney U test (Wilcoxon rank-sum), a pure function over two samples.
// As scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method="auto"): the exact
// distribution when there are no ties and one sample has fewer than 8 values; otherwise the
// normal approximation with tie correction and continuity correction.

#include <vector>

namespace opbench::stats {

struct UTestResult {
  double u = 0;       // U statistic of x (number of pairs with x > y, ties counting 1/2)
  double p_value = 1; // two-sided; 1 when either sample is empty
  bool exact = false; // exact distribution used
};

UTestResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

} // namespace opbench::stats
