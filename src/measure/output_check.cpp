#include "opbench/measure/output_check.hpp"

#include <algorithm>
#include <iomanip>
#include <limits>
#include <sstream>

#include "opbench/core/strings.hpp"

namespace opbench::measure {
namespace {

using Tensors = std::vector<at::Tensor>;

// `%g` of a double, as the reports print figures.
std::string short_number(double value) {
  std::ostringstream out;
  out << std::setprecision(3) << value;
  return out.str();
}

std::string dims(at::IntArrayRef sizes) {
  std::vector<std::string> parts;
  for (const std::int64_t d : sizes)
    parts.push_back(std::to_string(d));
  return parts.empty() ? "scalar" : core::join(parts, "x");
}

} // namespace

std::string Tolerance::text(const std::string& reference) const {
  return exact ? "exact"
               : "|d| <= " + short_number(atol) + " + " + short_number(rtol) + " * max|" +
                     reference + "|";
}

Tolerance tolerance_for(at::ScalarType type) {
  switch (type) {
  case at::kDouble:
    return {1e-7, 1e-7, false};
  case at::kFloat:
    return {1e-4, 1e-5, false};
  case at::kHalf:
    return {1e-3, 1e-5, false};
  case at::kBFloat16:
    return {1.6e-2, 1e-5, false};
  default:
    return {0, 0, true};
  }
}

std::string outputs_differ(const Tensors& expected, const Tensors& actual, double& worst,
                           const std::string& reference) {
  if (expected.size() != actual.size()) {
    return std::to_string(actual.size()) + " outputs where " + reference + " has " +
           std::to_string(expected.size());
  }
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const std::string name = "output " + std::to_string(i);
    if (!expected[i].defined() || !actual[i].defined()) {
      if (expected[i].defined() == actual[i].defined())
        continue;
      worst = std::numeric_limits<double>::infinity();
      return name + (actual[i].defined()
                         ? ": a tensor where " + reference + "'s is undefined"
                         : ": an undefined tensor where " + reference + "'s is a tensor");
    }
    const at::Tensor e = expected[i].detach().cpu();
    const at::Tensor a = actual[i].detach().cpu();
    if (e.sizes() != a.sizes()) {
      return name + ": shape " + dims(a.sizes()) + " where " + reference + "'s is " +
             dims(e.sizes());
    }
    if (e.scalar_type() != a.scalar_type()) {
      return name + ": dtype " + c10::toString(a.scalar_type()) + " where " + reference + "'s is " +
             c10::toString(e.scalar_type());
    }
    if (e.numel() == 0 || at::equal(e, a))
      continue; // identical (most stages): nothing to measure
    const Tolerance tol = tolerance_for(e.scalar_type());
    if (tol.exact) {
      const std::int64_t bad = at::ne(e, a).sum().item<std::int64_t>();
      worst = std::numeric_limits<double>::infinity();
      return name + ": " + std::to_string(bad) + " of " + std::to_string(e.numel()) +
             " elements differ (exact match expected)";
    }
    const at::Tensor e64 = e.to(at::kDouble);
    const at::Tensor a64 = a.to(at::kDouble);
    // Norm-wise: the bound scales with the output's largest finite magnitude, since a reduction
    // summed in another order errs in proportion to its terms, not to a (possibly cancelled)
    // result.
    const at::Tensor finite_e = at::where(at::isfinite(e64), e64.abs(), at::zeros_like(e64));
    const double bound = tol.atol + tol.rtol * finite_e.max().item<double>();
    const at::Tensor both_finite = at::logical_and(at::isfinite(a64), at::isfinite(e64));
    const at::Tensor same_special =
        at::logical_or(at::logical_and(at::isnan(a64), at::isnan(e64)), at::eq(a64, e64));
    const at::Tensor error = at::where(both_finite, (a64 - e64).abs(), at::zeros_like(e64));
    const at::Tensor close = at::where(both_finite, error <= bound, same_special);
    worst = std::max(worst, error.max().item<double>() / bound);
    if (!close.all().item<bool>()) {
      const std::int64_t bad = close.numel() - close.sum().item<std::int64_t>();
      worst = std::max(worst, 1.0 + std::numeric_limits<double>::epsilon());
      return name + ": " + std::to_string(bad) + " of " + std::to_string(e.numel()) +
             " elements beyond " + tol.text(reference.substr(reference.rfind(' ') + 1)) +
             " (worst " + short_number(worst) + " times the tolerance)";
    }
  }
  return "";
}

} // namespace opbench::measure
