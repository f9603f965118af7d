// The HTML view of an A/B (`opbench export --input AB.json --format html`): one page, no script,
// per case its verdict and, drawn, every round's ratio new / base, the interval of their trimmed
// mean and the threshold's band around 1 (docs/ab.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ab_text.hpp"
#include "opbench/ab/ab.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"

namespace opbench::ab {
namespace {

std::string esc(const std::string& text) {
  return core::xml_escape(text);
}

const char* verdict_colour(results::Verdict v) {
  switch (v) {
  case results::Verdict::slower:
    return "#c0392b";
  case results::Verdict::faster:
    return "#2471a3";
  case results::Verdict::same:
    return "#1e8449";
  default:
    return "#7f8c8d";
  }
}

// The drawing's span of ratios: every round's and interval's, and the threshold band, on a log
// scale, at least 0.8 to 1.25 so a quiet case does not look loud.
struct Span {
  double low = 0.8, high = 1.25;
  double x(double ratio, double width) const {
    const double at = (std::log(ratio) - std::log(low)) / (std::log(high) - std::log(low));
    return std::clamp(at, 0.0, 1.0) * width;
  }
};

Span span_of(const AbResult& result) {
  Span s;
  const double t = result.settings.verdict.threshold;
  s.low = std::min(s.low, 1.0 / (1.0 + 2 * t));
  s.high = std::max(s.high, 1.0 + 2 * t);
  auto widen = [&](double r) {
    if (std::isfinite(r) && r > 0) {
      s.low = std::min(s.low, r);
      s.high = std::max(s.high, r);
    }
  };
  for (const auto& c : result.cases) {
    for (std::size_t k = 0; k < c.paired.base.size() && k < c.paired.new_times.size(); ++k)
      widen(c.paired.new_times[k] / c.paired.base[k]);
    widen(c.paired.low);
    widen(c.paired.high);
  }
  s.low = std::max(s.low, 1.0 / 3); // a round 3x off is drawn at the edge
  s.high = std::min(s.high, 3.0);
  return s;
}

// One case's drawing: the band, 1, every round's ratio, the interval and its centre.
std::string drawing(const AbCase& c, const Span& s, double threshold) {
  const double w = 360, h = 22;
  std::string svg = fmt::format(
      "<svg width=\"{0}\" height=\"{1}\" role=\"img\" aria-label=\"rounds and interval\">", w, h);
  const double band_low = s.x(1 - threshold, w), band_high = s.x(1 + threshold, w);
  svg += fmt::format("<rect x=\"{:.1f}\" y=\"0\" width=\"{:.1f}\" height=\"{}\" fill=\"#eaf2ea\"/>",
                     band_low, band_high - band_low, h);
  svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"0\" y2=\"{1}\" stroke=\"#999\"/>",
                     s.x(1, w), h);
  const PairedCase& p = c.paired;
  for (std::size_t k = 0; k < p.base.size() && k < p.new_times.size(); ++k) {
    const double r = p.new_times[k] / p.base[k];
    if (std::isfinite(r) && r > 0) {
      svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"6\" r=\"2\" fill=\"#aaa\"><title>round {}: "
                         "{:.3f}</title></circle>",
                         s.x(r, w), k + 1, r);
    }
  }
  const char* colour = verdict_colour(p.verdict);
  if (std::isfinite(p.low) && std::isfinite(p.high)) {
    svg += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"15\" y2=\"15\" stroke=\"{}\" "
                       "stroke-width=\"3\"/>",
                       s.x(p.low, w), s.x(p.high, w), colour);
  }
  if (std::isfinite(p.ratio))
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"15\" r=\"4\" fill=\"{}\"/>", s.x(p.ratio, w),
                       colour);
  return svg + "</svg>";
}

} // namespace

void write_html(const AbResult& result, std::ostream& out) {
  const AbSettings& s = result.settings;
  const results::VerdictCounts n = result.counts();
  const Span span = span_of(result);
  out << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<title>opbench ab</title><style>"
         "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}"
         "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;"
         "text-align:left;vertical-align:middle;white-space:nowrap}td.n{text-align:right}"
         "td.c{white-space:normal;word-break:break-all;min-width:30em}"
         "code{font-size:90%}.v{font-weight:600}</style></head><body>\n";
  out << "<h1>opbench ab</h1>\n<ul>\n";
  out << "<li><b>base</b>: " << esc(s.base.binary) << " (" << esc(s.base.version) << ")"
      << (s.base.libraries.empty() ? "" : ", loading " + esc(core::join(s.base.libraries, ", ")))
      << "</li>\n";
  out << "<li><b>new</b>: " << esc(s.new_side.binary) << " (" << esc(s.new_side.version) << ")"
      << (s.new_side.libraries.empty() ? ""
                                       : ", loading " + esc(core::join(s.new_side.libraries, ", ")))
      << "</li>\n";
  out << fmt::format("<li><b>rounds</b>: {} of at most {}{}</li>\n", result.rounds_done, s.rounds,
                     result.interrupted     ? " (interrupted)"
                     : result.ended.empty() ? ""
                                            : " (" + esc(result.ended) + ")");
  out << fmt::format("<li><b>verdicts</b>: {} slower, {} faster, {} same, {} unknown; memory: {} "
                     "more, {} less</li>\n",
                     n.slower, n.faster, n.same, n.unknown, n.more_memory, n.less_memory);
  out << "<li><b>the suite</b>: geometric-mean ratio " << ratio_text(result.suite.ratio);
  if (std::isfinite(result.suite.low))
    out << fmt::format(" [{:.3f}, {:.3f}] over {} case(s) paired in all {} rounds",
                       result.suite.low, result.suite.high, result.suite.cases,
                       result.suite.rounds);
  out << "</li>\n";
  for (const auto& note : result.notes)
    out << "<li><b>note</b>: " << esc(note) << "</li>\n";
  out << "</ul>\n";
  out << fmt::format(
      "<p>Each row draws the case's rounds (grey: new / base of one round), the interval of their "
      "20%-trimmed mean (the line) and its centre (the dot), on a log scale from {:.2f} to "
      "{:.2f}; the green band is &plusmn;{:.0f}% (--threshold). Slower or faster when the line "
      "lies past the band, same when it lies within.</p>\n",
      span.low, span.high, s.verdict.threshold * 100);
  out << "<table>\n<tr><th>verdict</th><th>ratio</th><th>rounds and interval</th><th>interval"
         "</th><th>rounds</th><th>base</th><th>new</th><th>memory</th><th>case</th></tr>\n";
  for (const auto& c : result.cases) {
    const PairedCase& p = c.paired;
    const std::string why = reason_of(c);
    out << "<tr><td class=\"v\" style=\"color:" << verdict_colour(p.verdict) << "\""
        << (why.empty() ? "" : " title=\"" + esc(why) + "\"") << ">" << core::name_of(p.verdict)
        << "</td><td class=\"n\">" << ratio_text(p.ratio) << "</td><td>"
        << drawing(c, span, s.verdict.threshold) << "</td><td>" << esc(interval_text(p))
        << "</td><td class=\"n\">" << p.pairs << "</td><td class=\"n\">"
        << core::format_duration(typical(p.base)) << "</td><td class=\"n\">"
        << core::format_duration(typical(p.new_times)) << "</td><td>"
        << esc(core::name_of(p.memory.verdict)) << "</td><td class=\"c\"><code>" << esc(c.c.case_id)
        << "</code></td></tr>\n";
  }
  out << "</table>\n</body></html>\n";
}

} // namespace opbench::ab
