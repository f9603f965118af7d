#pragma once
#include "opbench/report/reporter.hpp"

namespace opbench::report {
// The result file's own schema (schema_version, context, cases with raw samples).
class JsonReporter final : public Reporter {
public:
  void write(const results::ResultSet& set, std::ostream& out) const override;
};
} // namespace opbench::report
