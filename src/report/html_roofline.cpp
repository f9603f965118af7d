// The HTML report's roofline section (html_parts.hpp): each case at its arithmetic intensity
// against the roofs its run was judged by.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "html_parts.hpp"
#include "opbench/core/units.hpp"
#include "opbench/results/estimate.hpp"

namespace opbench::report::html {
namespace {

// ---- roofline ------------------------------------------------------------------------------

struct Roofs {
  double bandwidth = 0; // bytes/s; 0: unknown
  double flops = 0;     // FLOP/s; 0: unknown
  std::vector<const results::CaseResult*> points;
};

// The calibrated roofs each case was judged against are recovered from its own figures
// (percent_of_peak = rate / peak), so the chart shows exactly the peaks the run used.
std::map<std::string, Roofs> roofs_of(const results::ResultSet& set) {
  std::map<std::string, Roofs> out;
  for (const auto& r : set.cases) {
    const auto& w = r.work;
    if (r.status != results::Status::ok || !w.intensity || !w.flops_per_second ||
        !(*w.intensity > 0) || !(*w.flops_per_second > 0)) {
      continue;
    }
    const std::string key = w.peaks.empty()
                                ? r.c.device + "/" + r.c.dtype + "/t" + std::to_string(r.c.threads)
                                : w.peaks;
    Roofs& roofs = out[key];
    roofs.points.push_back(&r);
    if (w.percent_of_peak && *w.percent_of_peak > 0) {
      // Each memory-bound case has the roof of its level (cost::memory_ceiling); the chart
      // draws the lowest of them, DRAM's where some case reaches it.
      if (w.bound == "memory" && w.bytes_per_second) {
        const double bandwidth = *w.bytes_per_second * 100 / *w.percent_of_peak;
        roofs.bandwidth = roofs.bandwidth > 0 ? std::min(roofs.bandwidth, bandwidth) : bandwidth;
      }
      if (w.bound == "compute")
        roofs.flops = *w.flops_per_second * 100 / *w.percent_of_peak;
    }
  }
  return out;
}

void write_roofline_chart(const std::string& key, const Roofs& roofs, std::ostream& out) {
  constexpr double width = 740, height = 420, left = 96, right = 20, top = 20, bottom = 50;
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = 0;
  double y_lo = std::numeric_limits<double>::infinity(), y_hi = 0;
  for (const auto* r : roofs.points) {
    x_lo = std::min(x_lo, *r->work.intensity);
    x_hi = std::max(x_hi, *r->work.intensity);
    y_lo = std::min(y_lo, *r->work.flops_per_second);
    y_hi = std::max(y_hi, *r->work.flops_per_second);
  }
  if (roofs.flops > 0)
    y_hi = std::max(y_hi, roofs.flops);
  if (roofs.bandwidth > 0 && roofs.flops > 0) {
    const double ridge = roofs.flops / roofs.bandwidth;
    x_lo = std::min(x_lo, ridge);
    x_hi = std::max(x_hi, ridge);
  }
  x_lo = std::pow(10.0, std::floor(std::log10(x_lo))),
  x_hi = std::pow(10.0, std::ceil(std::log10(x_hi) + 1e-9));
  y_lo = std::pow(10.0, std::floor(std::log10(y_lo))),
  y_hi = std::pow(10.0, std::ceil(std::log10(y_hi * 1.5)));
  const LogAxis x{x_lo, x_hi, left, width - right};
  const LogAxis y{y_lo, y_hi, height - bottom, top};
  out << "<figure><svg class=\"roofline\" data-peaks=\"" << esc(key) << "\" width=\"" << width
      << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height << "\">\n";
  for (double d : decades(x_lo, x_hi)) {
    out << fmt::format("<line class=\"grid\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/><text "
                       "class=\"tick\" x=\"{0}\" "
                       "y=\"{3}\" text-anchor=\"middle\">{4:g}</text>\n",
                       px(x(d)), top, height - bottom, height - bottom + 16, d);
  }
  for (double d : decades(y_lo, y_hi)) {
    out << fmt::format("<line class=\"grid\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/><text "
                       "class=\"tick\" x=\"{3}\" "
                       "y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
                       left, width - right, px(y(d)), left - 6, px(y(d) + 4),
                       esc(rate_text(d, "FLOP/s")));
  }
  out << fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">arithmetic "
                     "intensity (FLOP/byte)</text>\n",
                     (left + width - right) / 2, height - 10);
  out << fmt::format("<text class=\"label\" transform=\"rotate(-90)\" x=\"{}\" y=\"14\" "
                     "text-anchor=\"middle\">achieved FLOP/s</text>\n",
                     -(top + height - bottom) / 2);
  // The roof: bandwidth x intensity up to the ridge, then the compute peak.
  if (roofs.bandwidth > 0 || roofs.flops > 0) {
    std::vector<std::pair<double, double>> line;
    const double cap = roofs.flops > 0 ? roofs.flops : y_hi;
    if (roofs.bandwidth > 0) {
      const double start = std::max(x_lo, y_lo / roofs.bandwidth);
      const double ridge = std::min(x_hi, cap / roofs.bandwidth);
      line.emplace_back(start, roofs.bandwidth * start);
      line.emplace_back(ridge, roofs.bandwidth * ridge);
    }
    if (roofs.flops > 0) {
      line.emplace_back(roofs.bandwidth > 0 ? std::min(x_hi, roofs.flops / roofs.bandwidth) : x_lo,
                        roofs.flops);
      line.emplace_back(x_hi, roofs.flops);
    }
    out << "<polyline class=\"roof\" points=\"";
    for (const auto& [ix, iy] : line)
      out << px(x(ix)) << "," << px(y(std::min(iy, y_hi))) << " ";
    out << "\"/>\n";
    if (roofs.bandwidth > 0) {
      out << fmt::format("<text class=\"roof-label\" x=\"{}\" y=\"{}\">{}</text>\n", px(left + 8),
                         px(top + 14), esc("memory roof " + rate_text(roofs.bandwidth, "B/s")));
    }
    if (roofs.flops > 0) {
      out << fmt::format(
          "<text class=\"roof-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
          px(width - right - 4), px(y(roofs.flops) - 6),
          esc("compute roof " + rate_text(roofs.flops, "FLOP/s")));
    }
  }
  for (const auto* r : roofs.points) {
    const auto& w = r->work;
    out << fmt::format(
        "<circle class=\"point {}\" cx=\"{}\" cy=\"{}\" r=\"3.5\"><title>{}: {:.3g} FLOP/byte, "
        "{}{}</title></circle>\n",
        esc(w.bound), px(x(*w.intensity)), px(y(*w.flops_per_second)), esc(r->c.case_id),
        *w.intensity, esc(rate_text(*w.flops_per_second, "FLOP/s")),
        w.percent_of_peak ? fmt::format(", {:.1f}% of the {} roof", *w.percent_of_peak, w.bound)
                          : "");
  }
  out << "</svg><figcaption>" << esc(key) << ": " << roofs.points.size()
      << " case(s) with known FLOPs and bytes"
      << (roofs.bandwidth > 0 || roofs.flops > 0
              ? ""
              : "; no calibrated peaks (run `opbench calibrate`), so no roof")
      << "</figcaption></figure>\n";
}

} // namespace

void write_roofline(const results::ResultSet& set, std::ostream& out) {
  const auto all = roofs_of(set);
  out << "<section id=\"roofline\"><h2>Roofline</h2>\n";
  if (all.empty()) {
    out << "<p class=\"note\">No case has both known FLOPs and bytes: nothing to "
           "place.</p></section>\n";
    return;
  }
  out << "<p class=\"note\">Each case at its arithmetic intensity and achieved FLOP/s; the roofs "
         "are the "
         "calibrated peaks the run judged it against (<code>opbench calibrate</code>).</p>\n";
  for (const auto& [key, roofs] : all)
    write_roofline_chart(key, roofs, out);
  out << "</section>\n";
}

} // namespace opbench::report::html
