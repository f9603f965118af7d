#include "opbench/report/md_reporter.hpp"

#include <fmt/format.h>

#include <cmath>

#include "opbench/report/units.hpp"

namespace opbench::report {
namespace {

// Escapes the characters that break a Markdown table cell.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string context_value(const Json& context, const char* key) {
  if (!context.contains(key)) return "-";
  const Json& v = context[key];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

void MarkdownReporter::write(const results::ResultSet& set, std::ostream& out) const {
  const Json& ctx = set.context;
  out << "# opbench results\n\n";
  for (const char* key : {"date", "opbench_version", "libtorch_version", "host", "cpu_model",
                          "threads_default", "host_allocator", "command_line"}) {
    if (ctx.contains(key)) out << "- **" << key << "**: " << cell(context_value(ctx, key)) << "\n";
  }
  std::size_t ok = 0, errors = 0, skipped = 0;
  for (const auto& r : set.cases) {
    (r.status == "ok" ? ok : r.status == "error" ? errors : skipped)++;
  }
  out << fmt::format("- **cases**: {} ok, {} error, {} skipped\n\n", ok, errors, skipped);
  out << "| case | status | median | p90 | p99 | cv | samples | peak memory | allocs |\n";
  out << "|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : set.cases) {
    const auto& s = r.summary;
    const std::string status = r.status == "ok" ? "ok" : r.status + ": " + r.message;
    out << "| `" << cell(r.c.case_id) << "` | " << cell(status) << " | "
        << format_duration(s.median) << " | " << format_duration(s.p90) << " | "
        << format_duration(s.p99) << " | "
        << (std::isfinite(s.cv) ? fmt::format("{:.1f}%", s.cv * 100) : "-") << " | " << s.count
        << " | " << (r.memory ? format_bytes(r.memory->peak_bytes) : "-") << " | "
        << (r.memory ? std::to_string(r.memory->allocations) : "-") << " |\n";
  }
}

}  // namespace opbench::report
