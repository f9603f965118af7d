// JUnit view of a comparison (core/junit.hpp): a test case per case of both files; `slower` and
// `more memory` fail, an `unknown` time is skipped with its reason, the others pass; cases in one
// file only are skipped, saying which.
#include <fmt/format.h>

#include <cmath>

#include "opbench/compare/compare.hpp"
#include "opbench/core/junit.hpp"
#include "opbench/core/units.hpp"

namespace opbench::compare {
namespace {

std::string classname(const std::string& case_id) {
  return "opbench." + case_id.substr(0, case_id.find('/'));
}

std::string bound(double v) {
  return std::isfinite(v) && v > 0 ? fmt::format("x{:.3f}", v) : std::string("unbounded");
}

} // namespace

void write_junit(const Comparison& comparison, std::ostream& out) {
  using Outcome = core::JunitCase::Outcome;
  const auto& o = comparison.options;
  core::JunitSuite suite;
  suite.name = "opbench compare";
  suite.properties = {
      {"base", comparison.base_path},        {"new", comparison.new_path},
      {"estimator", comparison.estimator},   {"threshold", fmt::format("{}", o.threshold)},
      {"alpha", fmt::format("{}", o.alpha)}, {"min_replicates", std::to_string(o.min_replicates)}};
  for (const auto& c : comparison.cases) {
    core::JunitCase t;
    t.classname = classname(c.case_id);
    t.name = c.case_id;
    t.seconds = std::isfinite(c.new_time) ? c.new_time : -1;
    if (c.verdict == results::Verdict::slower) {
      t.outcome = Outcome::failed;
      t.type = "slower";
      t.message = fmt::format("slower: x{:.3f} (p {:.3g} < {}; {:.0f}% interval [{}, {}]), past "
                              "the {:.1f}% threshold",
                              c.ratio, c.p_value, o.alpha, (1 - o.alpha) * 100, bound(c.ratio_low),
                              bound(c.ratio_high), c.threshold * 100);
      if (!c.threshold_rule.empty())
        t.message += " (" + c.threshold_rule + ")";
      t.detail =
          fmt::format("base {} ({} repetitions), new {} ({} repetitions); {}",
                      core::format_duration(c.base_time), c.base_replicates,
                      core::format_duration(c.new_time), c.new_replicates, comparison.estimator);
    } else if (c.verdict == results::Verdict::unknown &&
               c.memory.verdict != results::MemoryVerdict::more) {
      t.outcome = Outcome::skipped;
      t.message = "unknown: " + c.reason;
    }
    results::add_memory_failure(t, c.memory);
    suite.cases.push_back(std::move(t));
  }
  for (const auto* only : {&comparison.only_in_base, &comparison.only_in_new}) {
    for (const auto& id : *only) {
      core::JunitCase t;
      t.classname = classname(id);
      t.name = id;
      t.outcome = Outcome::skipped;
      t.message = only == &comparison.only_in_base ? "only in base: not run by new"
                                                   : "only in new: not in base";
      suite.cases.push_back(std::move(t));
    }
  }
  for (const auto& note : comparison.notes)
    suite.system_out += note + "\n";
  core::write_junit(suite, out);
}

} // namespace opbench::compare
