#pragma once
// A report of `set` in `format` (report/reporter.hpp's formats) as a string, for the reporter
// tests.

#include <sstream>
#include <string>

#include "opbench/report/reporter.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::report::testing_support {

inline std::string render(const std::string& format, const results::ResultSet& set) {
  std::ostringstream out;
  write_report(format, set, out);
  return out.str();
}

} // namespace opbench::report::testing_support
