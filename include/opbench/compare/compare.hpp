#pragma once
// Two stored result sets, joined on case_id: is NEW slower than BASE? Decided on statistics, not
// a bare threshold: a case is `slower` only when its median ratio is past the threshold AND a
// two-sided Mann-Whitney U test on the raw samples says the difference is significant.

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::compare {

struct CompareOptions {
  double threshold = 0.05;        // relative change of the median that matters (0.05 = 5%)
  double alpha = 0.05;            // significance level of the U test
  std::size_t min_samples = 5;    // fewer samples on either side: verdict `unknown`
};

struct CaseComparison {
  std::string case_id;
  std::string verdict;  // "faster", "slower", "same" or "unknown"
  std::string reason;   // why `unknown`
  double base_median = 0;  // seconds; NaN when absent
  double new_median = 0;
  double ratio = 0;     // new / base; NaN when absent
  double p_value = 0;   // NaN when not tested
  std::size_t base_samples = 0;
  std::size_t new_samples = 0;
};

struct Comparison {
  CompareOptions options;
  std::string base_path;
  std::string new_path;
  std::vector<CaseComparison> cases;  // the cases of both files, in BASE's order
  double geomean_ratio = 0;           // geometric mean of the ratios that exist; NaN when none
  std::vector<std::string> only_in_base;
  std::vector<std::string> only_in_new;

  std::size_t count(const std::string& verdict) const;
  // Some case is significantly slower by more than the threshold.
  bool regressed() const { return count("slower") > 0; }
};

// Throws ResultsError when the two sets have no case in common (incompatible files).
Comparison compare_results(const results::ResultSet& base, const results::ResultSet& candidate,
                           const CompareOptions& options);

// Output formats of `opbench compare`: md, json, csv.
const std::vector<std::string>& comparison_formats();
void write_comparison(const Comparison& comparison, const std::string& format, std::ostream& out);

Json to_json(const Comparison& comparison);
void write_markdown(const Comparison& comparison, std::ostream& out);
void write_csv(const Comparison& comparison, std::ostream& out);

}  // namespace opbench::compare
