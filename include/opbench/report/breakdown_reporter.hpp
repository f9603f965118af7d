#pragma once
#include "opbench/report/reporter.hpp"

namespace opbench::report {
// Where a model's time goes (Markdown): operator cases ranked by count x median with their
// share of the sum, the sum of the parts against the whole model's own case (kind "model",
// from `run --model`), and the calls that were not timed, with why.
class BreakdownReporter final : public Reporter {
public:
  void write(const results::ResultSet& set, std::ostream& out) const override;
};
} // namespace opbench::report
