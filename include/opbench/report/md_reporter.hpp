#pragma once
#include "opbench/report/reporter.hpp"

namespace opbench::report {
// A Markdown summary: the context, then one table row per case in human units.
class MarkdownReporter final : public Reporter {
public:
  void write(const results::ResultSet& set, std::ostream& out) const override;
};
} // namespace opbench::report
