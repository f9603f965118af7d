#pragma once
// The HTML report's parts shared by its files (html_reporter.cpp: summary, cases, the page;
// html_roofline.cpp: the roofline; html_sections.cpp: comparison, stages, variants, history):
// escaping, number formats, log axes, and the sections each file writes for the others.

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/report/html_reporter.hpp"
#include "opbench/report/stage_reporter.hpp"
#include "opbench/report/variants_reporter.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::report::html {

using stats::k_nan;

inline std::string esc(const std::string& text) {
  return core::xml_escape(text);
}

inline std::string num(double v) {
  return std::isfinite(v) ? fmt::format("{:.4g}", v) : std::string("0");
}
inline std::string px(double v) {
  return fmt::format("{:.1f}", v);
}

inline std::string context_text(const Json& context, const char* key) {
  if (!context.contains(key) || context[key].is_null())
    return "";
  const Json& v = context[key];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

inline std::string rate_text(double per_second, const char* unit) {
  if (per_second >= 1e12)
    return fmt::format("{:.2f} T{}", per_second / 1e12, unit);
  if (per_second >= 1e9)
    return fmt::format("{:.2f} G{}", per_second / 1e9, unit);
  if (per_second >= 1e6)
    return fmt::format("{:.2f} M{}", per_second / 1e6, unit);
  return fmt::format("{:.3g} {}", per_second, unit);
}

// A log axis: maps [lo, hi] onto [from, to] pixels (to < from for a y axis).
struct LogAxis {
  double lo, hi, from, to;
  double operator()(double v) const {
    const double t = (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    return from + t * (to - from);
  }
};

// Powers of ten inside [lo, hi].
inline std::vector<double> decades(double lo, double hi) {
  std::vector<double> out;
  for (double p = std::pow(10.0, std::ceil(std::log10(lo) - 1e-9)); p <= hi * (1 + 1e-9); p *= 10)
    out.push_back(p);
  return out;
}

// The comparison section (--compare): every case's ratio with its interval, compare's notes.
void write_comparison(const results::ResultSet& set, const HtmlExtras& extras, std::ostream& out);
// The stage table (run --stage): each stage's time and speedup over eager.
void write_stages(const StageTable& table, std::ostream& out);
// The variants section: each implementation's speedup over its group's baseline, and their means.
void write_variants(const std::vector<Speedup>& speedups, std::ostream& out);
// The roofline (html_roofline.cpp): every case with work at its intensity, against its run's roofs.
void write_roofline(const results::ResultSet& set, std::ostream& out);
// The history section (--history): a trend line per case.
void write_history(const results::ResultSet& set, const HtmlExtras& extras, std::ostream& out);

} // namespace opbench::report::html
