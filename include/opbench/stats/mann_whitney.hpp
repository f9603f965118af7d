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

// The confidence interval of the shift from x to y that goes with the U test (Hodges-Lehmann;
// Bauer 1972, as R's wilcox.test(conf.int = TRUE)): of the n m differences y_j - x_i, sorted,
// [d(k), d(n m + 1 - k)] (1-based), k the largest with P(U <= k - 1) <= (1 - confidence) / 2 under
// no shift: the exact distribution of U while n m <= 10,000, else its normal approximation.
// When no k >= 1 qualifies (too few values: 2 and 2 cannot reach 95%), the interval is
// (-inf, +inf): the values cannot bound the shift. `estimate` is the median difference.
struct ShiftInterval {
  double estimate = 0;
  double low = 0;
  double high = 0;
};
ShiftInterval shift_interval(const std::vector<double>& x, const std::vector<double>& y,
                             double confidence);

} // namespace opbench::stats
