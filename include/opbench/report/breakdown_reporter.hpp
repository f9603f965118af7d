#pragma once
#include "opbench/report/reporter.hpp"

namespace opbench::report {
// Where a model's or a long-tail sample's time goes (Markdown): operator cases ranked by count x
// time with their share of the sum, the sum of the parts against the whole's own case (kind
// "model", from `run --model`; or a sample case whose results::case_key is the parts' `source`,
// from `extract --sample`: one section per such case), and the calls that were not timed, with
// why (docs/extract.md).
class BreakdownReporter final : public Reporter {
public:
  void write(const results::ResultSet& set, std::ostream& out) const override;
};
} // namespace opbench::report
