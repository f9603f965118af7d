#include "opbench/core/junit.hpp"

#include <fmt/format.h>

#include <cstddef>

#include "opbench/core/strings.hpp"

namespace opbench::core {

void write_junit(const JunitSuite& suite, std::ostream& out) {
  std::size_t failures = 0, skipped = 0;
  double seconds = 0;
  for (const auto& c : suite.cases) {
    failures += c.outcome == JunitCase::Outcome::failed ? 1 : 0;
    skipped += c.outcome == JunitCase::Outcome::skipped ? 1 : 0;
    seconds += c.seconds > 0 ? c.seconds : 0;
  }
  const std::string counts =
      fmt::format("tests=\"{}\" failures=\"{}\" errors=\"0\"", suite.cases.size(), failures);
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"" << xml_escape(suite.name) << "\" " << counts
      << fmt::format(" time=\"{:.9f}\">\n", seconds);
  out << "  <testsuite name=\"" << xml_escape(suite.name) << "\" " << counts
      << fmt::format(" skipped=\"{}\" time=\"{:.9f}\">\n", skipped, seconds);
  if (!suite.properties.empty()) {
    out << "    <properties>\n";
    for (const auto& [name, value] : suite.properties)
      out << "      <property name=\"" << xml_escape(name) << "\" value=\"" << xml_escape(value)
          << "\"/>\n";
    out << "    </properties>\n";
  }
  for (const auto& c : suite.cases) {
    out << "    <testcase classname=\"" << xml_escape(c.classname) << "\" name=\""
        << xml_escape(c.name) << "\"";
    if (c.seconds >= 0)
      out << fmt::format(" time=\"{:.9f}\"", c.seconds);
    switch (c.outcome) {
    case JunitCase::Outcome::passed:
      out << "/>\n";
      break;
    case JunitCase::Outcome::skipped:
      out << ">\n      <skipped>" << xml_escape(c.message) << "</skipped>\n    </testcase>\n";
      break;
    case JunitCase::Outcome::failed:
      out << ">\n      <failure type=\"" << xml_escape(c.type) << "\" message=\""
          << xml_escape(c.message) << "\">" << xml_escape(c.detail)
          << "</failure>\n    </testcase>\n";
      break;
    }
  }
  if (!suite.system_out.empty())
    out << "    <system-out>" << xml_escape(suite.system_out) << "</system-out>\n";
  out << "  </testsuite>\n</testsuites>\n";
}

} // namespace opbench::core
