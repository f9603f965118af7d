#pragma once
// JUnit XML, as CI systems read it (Jenkins' junit-4 schema, which GitLab and GitHub's test
// reporters also read): one <testsuite> of <testcase>s, each passed, failed or skipped. The
// writer for `compare --format junit` (compare/compare.hpp) and the gate's (gate/gate.hpp);
// docs/nightly.md#junit-xml says how verdicts map.

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace opbench::core {

struct JunitCase {
  enum class Outcome { passed, failed, skipped };
  std::string classname; // "opbench.conv2d"
  std::string name;      // the case id
  double seconds = -1;   // its time attribute; negative: none
  Outcome outcome = Outcome::passed;
  std::string type;    // failed: the failure's type ("slower")
  std::string message; // failed: the failure's message; skipped: why (the element's text)
  std::string detail;  // failed: the failure's text
};

struct JunitSuite {
  std::string name;
  std::vector<std::pair<std::string, std::string>> properties; // name, value
  std::vector<JunitCase> cases;
  std::string system_out; // notes for the reader; "" for none
};

// The document: <testsuites> holding `suite`, counts in both. Text is escaped, and characters
// XML 1.0 cannot hold (control characters other than tab, newline, carriage return) are dropped.
void write_junit(const JunitSuite& suite, std::ostream& out);

} // namespace opbench::core
