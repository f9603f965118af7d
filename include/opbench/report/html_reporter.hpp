#pragma once
// One self-contained HTML file for people: a summary, every case's time distribution (sortable,
// filterable), the roofline chart, and with a base file the ratio of every case with its
// interval, with a history a trend line per case. No network: inline SVG and CSS, a small inline
// script for sorting and filtering, and a Content-Security-Policy that forbids any request, so
// the file opens the same from a CI artifact as from disk. The numbers and their wording come
// from the same places as the other reporters (units.hpp, reporter.hpp, compare.hpp).

#include <map>
#include <string>
#include <vector>

#include "opbench/compare/compare.hpp"
#include "opbench/history/history.hpp"
#include "opbench/report/reporter.hpp"

namespace opbench::report {

struct HtmlExtras {
  // --compare: the comparison of the report's file against a base file.
  const compare::Comparison* comparison = nullptr;
  // --history: each case's values over the stored runs, oldest first.
  std::map<std::string, std::vector<history::Point>> trends;
  std::string history_path;
  // The absolute directory the report is written to: trace links are relative to it, so a report
  // copied with its traces (the same layout) keeps them. Empty (stdout): absolute file:// links.
  std::string report_dir;
};

class HtmlReporter final : public Reporter {
public:
  explicit HtmlReporter(HtmlExtras extras = {}) : m_extras(std::move(extras)) {}
  void write(const results::ResultSet& set, std::ostream& out) const override;

  // How many block samples a case's strip plot shows at most: evenly spaced order statistics of
  // all its blocks (every block when it has fewer).
  static constexpr std::size_t k_strip_samples = 48;

private:
  HtmlExtras m_extras;
};

} // namespace opbench::report
