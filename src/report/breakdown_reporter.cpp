#include "opbench/report/breakdown_reporter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "opbench/core/units.hpp"

namespace opbench::report {

void BreakdownReporter::write(const results::ResultSet& set, std::ostream& out) const {
  std::vector<const results::CaseResult*> parts;
  std::vector<const results::CaseResult*> wholes;
  std::vector<const results::CaseResult*> untimed;
  double sum = 0;
  for (const auto& r : set.cases) {
    if (r.c.kind == results::Kind::model) {
      wholes.push_back(&r);
    } else if (r.status == results::Status::ok && std::isfinite(r.estimate.time)) {
      parts.push_back(&r);
      sum += r.estimate.time * r.c.count;
    } else {
      untimed.push_back(&r);
    }
  }
  std::sort(parts.begin(), parts.end(), [](const auto* a, const auto* b) {
    return a->estimate.time * a->c.count > b->estimate.time * b->c.count;
  });
  out << "# opbench breakdown\n\n";
  out << "Each call's time is the case's time (its estimator over the repetition medians).\n\n";
  out << "| rank | case | calls | time | calls x time | share | cumulative |\n";
  out << "|---:|---|---:|---:|---:|---:|---:|\n";
  double cumulative = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto* r = parts[i];
    const double total = r->estimate.time * r->c.count;
    cumulative += total;
    out << fmt::format("| {} | `{}` | {} | {} | {} | {:.1f}% | {:.1f}% |\n", i + 1, r->c.case_id,
                       r->c.count, core::format_duration(r->estimate.time),
                       core::format_duration(total), sum > 0 ? 100 * total / sum : 0.0,
                       sum > 0 ? 100 * cumulative / sum : 0.0);
  }
  out << fmt::format("\n**Sum of the parts**: {} ({} distinct calls)\n", core::format_duration(sum),
                     parts.size());
  for (const auto* whole : wholes) {
    if (whole->status == results::Status::ok) {
      out << fmt::format("**Whole model** (`{}`): {}; parts / whole: {:.2f}\n", whole->c.name,
                         core::format_duration(whole->estimate.time), sum / whole->estimate.time);
    } else {
      out << fmt::format("**Whole model** (`{}`): {}: {}\n", whole->c.name,
                         core::name_of(whole->status), whole->message);
    }
  }
  if (!untimed.empty()) {
    out << "\n## Not timed\n\n| case | calls | status | why |\n|---|---:|---|---|\n";
    for (const auto* r : untimed) {
      out << "| `" << r->c.case_id << "` | " << r->c.count << " | " << core::name_of(r->status)
          << " | " << r->message << " |\n";
    }
  }
}

} // namespace opbench::report
