#pragma once
// Distributions and multiple-testing control for the nightly gate, as pure functions.

#include <cstddef>
#include <vector>

namespace opbench::stats {

// P(T <= t) for Student's t with `df` > 0 degrees of freedom (through the regularized incomplete
// beta function, continued fraction as in Numerical Recipes' betacf); the normal CDF when df is
// infinite.
double student_t_cdf(double t, double df);

// The p-quantile of Student's t (0 < p < 1), by bisection on student_t_cdf.
double student_t_quantile(double p, double df);

// Two-sided p-value of a t statistic: 2 P(T >= |t|).
double two_sided_t_p(double t, double df);

// Benjamini-Hochberg at false discovery rate `q`: which hypotheses are rejected (true) among
// `p_values` (NaN never is). The largest k with p(k) <= k q / m (m = the non-NaN count) rejects
// the k smallest.
std::vector<bool> benjamini_hochberg(const std::vector<double>& p_values, double q);

} // namespace opbench::stats
