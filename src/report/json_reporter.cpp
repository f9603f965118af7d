#include "opbench/report/json_reporter.hpp"

namespace opbench::report {

void JsonReporter::write(const results::ResultSet& set, std::ostream& out) const {
  out << results::to_json(set).dump(2) << "\n";
}

} // namespace opbench::report
