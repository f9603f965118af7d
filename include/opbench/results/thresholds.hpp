#pragma once
// Per-case thresholds from a rule file (`compare --thresholds FILE`, for two files and for the
// gate): a noisy family gets a wider threshold than the rest without widening it for every case.
// One rule a line, `case|op|tag NAME THRESHOLD`, `#` starts a comment:
//
//   tag noisy 0.10
//   op index_put 0.08
//   case relu/self=8x64x112x112/float32/cpu/t1/forward 0.15
//
// THRESHOLD is the relative change that counts (0.10 = 10%), over 0 and under 1. A case takes the
// most specific rule that matches it: its own `case`, else its operator's `op` (Case::name, the
// case id's first part), else the largest of its tags' `tag` rules; else the command's threshold.
// docs/nightly.md#thresholds-per-case.

#include <optional>
#include <string>
#include <vector>

#include "opbench/core/names.hpp"
#include "opbench/results/case.hpp"

namespace opbench::results {

struct ThresholdRule {
  enum class Kind { case_id, op, tag };
  Kind kind = Kind::case_id;
  std::string name;
  double threshold = 0;
  std::string where; // "FILE:LINE"
};

// Reads a rule file. Throws UsageError naming the file and line: an unknown kind, a missing name
// or threshold, a threshold not a number in (0, 1), extra words, two rules for one thing.
std::vector<ThresholdRule> read_threshold_rules(const std::string& path);

// Throws UsageError naming the file and line of the first rule that matches none of `cases`
// (a case id, operator or tag that is in neither file: a typo would otherwise widen nothing).
void check_threshold_rules(const std::vector<ThresholdRule>& rules,
                           const std::vector<const Case*>& cases);

// The rule for `c`, most specific first (see above); nullptr when none matches.
const ThresholdRule* threshold_rule_for(const std::vector<ThresholdRule>& rules, const Case& c);

// "tag noisy": the rule as a report names it beside the threshold it took.
std::string describe(const ThresholdRule& rule);

} // namespace opbench::results

namespace opbench::core {
template <> struct NameTable<results::ThresholdRule::Kind> {
  static constexpr std::pair<results::ThresholdRule::Kind, std::string_view> k_names[] = {
      {results::ThresholdRule::Kind::case_id, "case"},
      {results::ThresholdRule::Kind::op, "op"},
      {results::ThresholdRule::Kind::tag, "tag"}};
};
} // namespace opbench::core
