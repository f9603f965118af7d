#pragma once
#include "opbench/report/reporter.hpp"

namespace opbench::report {
// One row per case; times in microseconds (`_us` columns), memory in bytes; RFC 4180 quoting.
class CsvReporter final : public Reporter {
public:
  void write(const results::ResultSet& set, std::ostream& out) const override;
};
} // namespace opbench::report
