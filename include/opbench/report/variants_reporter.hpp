#pragma once
// Implementations side by side: a config's variant groups (results::Variant,
// docs/custom-ops.md#implementations-side-by-side), each implementation's speedup over the
// group's baseline at every point, with its interval, and per implementation their geometric mean.
// A speedup is shown only for an implementation whose outputs were checked against the baseline's
// and passed (results::OutputCheck), that measured ok, and whose repetitions agree (not
// UNSTABLE); every other row says which of these it is not.

#include <string>
#include <vector>

#include "opbench/report/reporter.hpp"

namespace opbench::report {

// One implementation at one point of its group, beside the baseline there.
struct Speedup {
  std::string group;        // the variant group
  std::string baseline_id;  // the baseline's case at this point
  std::string case_id;      // this implementation's case
  std::string op;           // its operator
  double baseline_time = 0; // [s] the baseline's estimate.time
  double time = 0;          // [s] this implementation's
  // One statistic gives the point and its interval: exp(-shift) of the Hodges-Lehmann shift of the
  // log repetition medians (implementation - baseline) and its 95% interval (as compare). Over
  // 1: this one is faster. NaN when there is no speedup (`note` says why); an interval end 0 or
  // +inf when the repetitions cannot bound it.
  double speedup = 0;
  double low = 0, high = 0;
  std::string check; // the check against the baseline: "passed before and after 6 reps"
  std::string note;  // why there is no speedup: "not checked: ...", "error: ...",
                     // "failed its check: ...", "UNSTABLE", "baseline not run"
};

// Every non-baseline implementation of every variant group in `set`, in file order.
std::vector<Speedup> speedups(const results::ResultSet& set);

// Per group and operator: the geometric mean of its speedups and how many points it holds.
struct MeanSpeedup {
  std::string group;
  std::string op;
  double geometric_mean = 0;
  std::size_t points = 0;
};
std::vector<MeanSpeedup> mean_speedups(const std::vector<Speedup>& speedups);

// "x1.84 [1.80, 1.90]" (unbounded ends as such); "-" without a speedup.
std::string speedup_text(const Speedup& s);

// Markdown: one table row per implementation and point, then the geometric means.
class VariantsReporter final : public Reporter {
public:
  void write(const results::ResultSet& set, std::ostream& out) const override;
};

} // namespace opbench::report
