#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "html_parts.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/results/estimate.hpp"

namespace opbench::report::html {

// ---- comparison ----------------------------------------------------------------------------

// The ratio bar: a log axis from 1/`extent` to `extent`, 1 in the middle; the ratio's interval
// (compare's, from the repetition medians) as a line, the ratio as a dot.
static std::string ratio_plot(double ratio, double low, double high, double extent) {
  constexpr double width = 240, height = 18, pad = 6;
  const LogAxis x{1 / extent, extent, pad, width - pad};
  auto at = [&](double v) { return std::clamp(x(std::max(v, 1e-300)), pad, width - pad); };
  std::string svg = fmt::format(
      "<svg class=\"ratio\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">", width, height);
  svg += fmt::format("<line class=\"one\" x1=\"{0}\" x2=\"{0}\" y1=\"0\" y2=\"{1}\"/>", px(x(1.0)),
                     height);
  if (std::isfinite(low) && std::isfinite(high) && low > 0) {
    svg += fmt::format("<line class=\"interval\" x1=\"{}\" x2=\"{}\" y1=\"9\" y2=\"9\"/>",
                       px(at(low)), px(at(high)));
  }
  svg += fmt::format("<circle class=\"ratio-dot\" cx=\"{}\" cy=\"9\" r=\"3.5\"/></svg>",
                     px(at(ratio)));
  return svg;
}

// The smallest power of two, 2 at least, that holds every ratio of `cmp` and 1/it: the ratio
// bars' axis runs from 1/extent to extent, so x9.1 and x2.1 never look alike.
// The memory verdict of a case as a table cell; the tooltip says what moved or why unknown.
static std::string memory_cell(const results::MemoryChange& m) {
  const std::string name = core::name_of(m.verdict);
  return "<td class=\"memory " + esc(name == "more memory" ? "more" : name) + "\"" +
         (m.reason.empty() ? "" : " title=\"" + esc(m.reason) + "\"") + ">" + esc(name) +
         (m.new_peak >= 0 ? " (" + core::format_bytes(m.new_peak) + ")" : "") + "</td>";
}

static double ratio_axis_extent(const compare::Comparison& cmp) {
  double farthest = 1;
  for (const auto& c : cmp.cases) {
    if (std::isfinite(c.ratio) && c.ratio > 0)
      farthest = std::max({farthest, c.ratio, 1 / c.ratio});
  }
  double extent = 2;
  while (extent < farthest && extent < 1e6)
    extent *= 2;
  return extent;
}

void write_comparison(const results::ResultSet&, const HtmlExtras& extras, std::ostream& out) {
  const compare::Comparison& cmp = *extras.comparison;
  std::vector<const compare::CaseComparison*> rows;
  for (const auto& c : cmp.cases)
    rows.push_back(&c);
  auto distance = [](const compare::CaseComparison* c) {
    return std::isfinite(c->ratio) && c->ratio > 0 ? std::abs(std::log(c->ratio)) : -1.0;
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](auto* a, auto* b) { return distance(a) > distance(b); });
  out << "<section id=\"compare\"><h2>Against " << esc(cmp.base_path) << "</h2>\n";
  out << fmt::format(
      "<p><span class=\"slower\">{} slower</span>, <span class=\"faster\">{} faster</span>, {} "
      "same, "
      "{} unknown; geometric mean of the ratios {}; |new/base &minus; 1|: median {:.1f}%, p90 "
      "{:.1f}%.</p>\n",
      cmp.count(results::Verdict::slower), cmp.count(results::Verdict::faster),
      cmp.count(results::Verdict::same), cmp.count(results::Verdict::unknown),
      std::isfinite(cmp.geomean_ratio) ? fmt::format("{:.3f}", cmp.geomean_ratio) : "-",
      cmp.agreement.median_abs_change * 100, cmp.agreement.p90_abs_change * 100);
  const double extent = ratio_axis_extent(cmp);
  for (const std::string& note : cmp.notes) // every note compare prints
    out << "<p class=\"note compare-note\">Note: " << esc(note) << "</p>\n";
  out << "<p class=\"note\">Slower or faster: past the "
      << fmt::format("{:.0f}", cmp.options.threshold * 100)
      << "% threshold and significant (Mann-Whitney U on the repetition medians); same: the "
         "ratio's interval within the threshold; else unknown (the verdict's tooltip says why). "
         "The bar: new/base on a log axis "
      << fmt::format("from &times;1/{0:g} to &times;{0:g}", extent)
      << ", with its interval (Hodges-Lehmann, from the repetition medians); farthest from 1 "
         "first.</p>\n";
  out << "<table "
         "id=\"compare-table\"><thead><tr><th>case</th><th>verdict</th><th>base</th><th>new</th>"
         "<th>new/base</th><th>ratio</th><th>memory</th></tr></thead><tbody>\n";
  for (const auto* c : rows) {
    const double low = c->ratio_low, high = c->ratio_high;
    const bool has_ratio = std::isfinite(c->ratio);
    out << "<tr class=\"cmp " << esc(core::name_of(c->verdict)) << "\"><td><code>"
        << esc(c->case_id) << "</code></td><td"
        << (c->reason.empty() ? "" : " title=\"" + esc(c->reason) + "\"") << ">"
        << esc(core::name_of(c->verdict))
        << (c->threshold_rule.empty()
                ? std::string()
                : fmt::format(" ({:.0f}%: {})", c->threshold * 100, esc(c->threshold_rule)))
        << "</td><td>" << core::format_duration(c->base_time) << "</td><td>"
        << core::format_duration(c->new_time) << "</td><td>"
        << (has_ratio ? fmt::format("&times;{:.3f}", c->ratio) : "-")
        << (std::isfinite(low) ? fmt::format(" [{:.3f}, {:.3f}]", low, high) : "") << "</td><td>"
        << (has_ratio ? ratio_plot(c->ratio, low, high, extent) : "") << "</td>"
        << memory_cell(c->memory) << "</tr>\n";
  }
  out << "</tbody></table>\n";
  if (!cmp.only_in_base.empty() || !cmp.only_in_new.empty()) {
    out << fmt::format(
        "<p class=\"note\">{} case(s) only in the base, {} only in the new file.</p>\n",
        cmp.only_in_base.size(), cmp.only_in_new.size());
  }
  out << "</section>\n";
}

// ---- stages --------------------------------------------------------------------------------

// The speedup bar of a stage: a log axis from ×1/8 to ×8, 1 in the middle, the bar from 1 to
// the speedup (green when faster than eager, red when slower).
static std::string speedup_plot(double speedup) {
  constexpr double width = 160, height = 14, pad = 4;
  const LogAxis x{0.125, 8.0, pad, width - pad};
  const double one = x(1.0);
  const double at = std::clamp(x(std::max(speedup, 1e-300)), pad, width - pad);
  return fmt::format("<svg class=\"speedup\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">"
                     "<rect class=\"{2}\" x=\"{3}\" y=\"3\" width=\"{4}\" height=\"8\"/>"
                     "<line class=\"one\" x1=\"{5}\" x2=\"{5}\" y1=\"0\" y2=\"{1}\"/></svg>",
                     width, height, speedup >= 1 ? "gain" : "loss", px(std::min(one, at)),
                     px(std::abs(at - one)), px(one));
}

// Implementations side by side (variants_reporter.hpp): each row's times, its check against the
// baseline and its speedup (only where the check passed) as a bar, then the geometric means.
void write_variants(const std::vector<Speedup>& speedups, std::ostream& out) {
  out << "<section id=\"variants\"><h2>Implementations side by side</h2>\n<p class=\"note\">"
         "Each implementation of a variant group against the group's baseline at the same point, "
         "its outputs held against the baseline's before and after it was timed (check). "
         "Speedup = the baseline's time / its time, the Hodges-Lehmann estimate over the "
         "repetition medians with its 95% interval, shown only where the check passed; bars on a "
         "log axis from &times;1/8 to &times;8.</p>\n<table id=\"variant-table\"><thead><tr><th>"
         "group</th><th>baseline</th><th>time</th><th>implementation</th><th>time</th><th>check"
         "</th><th>speedup</th></tr></thead><tbody>\n";
  for (const auto& s : speedups) {
    out << "<tr><td>" << esc(s.group) << "</td><td><code>" << esc(s.baseline_id)
        << "</code></td><td>"
        << (std::isfinite(s.baseline_time) ? core::format_duration(s.baseline_time) : "-")
        << "</td><td><code>" << esc(s.case_id) << "</code></td><td>"
        << (std::isfinite(s.time) ? core::format_duration(s.time) : "-") << "</td><td>"
        << esc(s.check) << "</td><td>";
    if (s.note.empty())
      out << esc(speedup_text(s)) << "<br>" << speedup_plot(s.speedup);
    else
      out << "no speedup: " << esc(s.note);
    out << "</td></tr>\n";
  }
  out << "</tbody></table>\n<table id=\"variant-means\"><thead><tr><th>group</th><th>"
         "implementation</th><th>points</th><th>geometric mean speedup</th></tr></thead><tbody>\n";
  for (const auto& m : mean_speedups(speedups)) {
    out << "<tr><td>" << esc(m.group) << "</td><td>" << esc(m.op) << "</td><td>" << m.points
        << "</td><td>" << fmt::format("&times;{:.3f}", m.geometric_mean) << "<br>"
        << speedup_plot(m.geometric_mean) << "</td></tr>\n";
  }
  out << "</tbody></table></section>\n";
}

void write_stages(const StageTable& table, std::ostream& out) {
  out << "<section id=\"stages\"><h2>Stages</h2>\n<p class=\"note\">The same computation eager "
         "(LongTail-Bench's S1), traced to a TorchScript graph (script, S2), with LibTorch's fuser "
         "(fused), as one CUDA graph (graph), compiled ahead of time by TorchInductor for its "
         "sizes (inductor; these three: S3), one trace run at every size with the fuser in "
         "dynamic-shape mode (script-dynamic, S4), one Inductor package with symbolic sizes for "
         "every size (inductor-dynamic, S5); each checked against eager before timing. Bars: "
         "speedup over eager on a log axis from &times;1/8 to &times;8. Under a compiled stage: "
         "its compile time and the calls after which it has paid for itself against eager.</p>\n";
  out << "<table id=\"stage-table\"><thead><tr><th>case</th><th>tags</th>";
  for (const auto& stage : table.stages)
    out << "<th>" << esc(core::name_of(stage)) << "</th>";
  out << "</tr></thead><tbody>\n";
  for (const StageRow& row : table.rows) {
    out << "<tr><td><code>" << esc(row.case_id) << "</code></td><td>"
        << esc(core::join(row.tags, " ")) << "</td>";
    for (const StageCell& cell : row.cells) {
      if (!cell.ok()) {
        out << "<td class=\"" << esc(cell.status_name()) << "\" title=\""
            << esc(core::first_line(cell.message)) << "\">"
            << (cell.status ? esc(cell.status_name()) : "-") << "</td>";
        continue;
      }
      out << "<td>" << core::format_duration(cell.time);
      if (cell.speedup && &cell != &row.cells.front()) {
        out << fmt::format(" &times;{:.2f}", *cell.speedup) << "<br>"
            << speedup_plot(*cell.speedup);
      }
      if (cell.compile_time) {
        out << "<br><span class=\"compile\">compile " << core::format_duration(*cell.compile_time)
            << ", "
            << (cell.break_even_calls
                    ? fmt::format("paid back after {:.0f} calls", std::ceil(*cell.break_even_calls))
                    : std::string("never paid back"))
            << "</span>";
      }
      out << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody></table>\n<table id=\"stage-means\"><thead><tr><th>geometric mean (rows)</th>";
  for (std::size_t s = 1; s < table.stages.size(); ++s)
    out << "<th>" << esc(core::name_of(table.stages[s])) << "</th>";
  out << "</tr></thead><tbody>\n";
  for (const StageMean& mean : table.means) {
    out << "<tr><td>" << esc(mean.group) << "</td>";
    for (std::size_t s = 1; s < table.stages.size(); ++s) {
      out << "<td>";
      if (std::isfinite(mean.speedup[s])) {
        out << fmt::format("&times;{:.2f} ({})<br>", mean.speedup[s], mean.rows[s])
            << speedup_plot(mean.speedup[s]);
      } else {
        out << "-";
      }
      out << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody></table></section>\n";
}

// ---- history -------------------------------------------------------------------------------

static std::string trend_plot(const std::vector<history::Point>& points) {
  constexpr double width = 260, height = 40, pad = 4;
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& p : points)
    lo = std::min(lo, p.time), hi = std::max(hi, p.time);
  if (!(hi > lo))
    lo = lo * 0.95, hi = hi * 1.05;
  const double step =
      points.size() > 1 ? (width - 2 * pad) / static_cast<double>(points.size() - 1) : 0;
  auto y = [&](double v) { return height - pad - (v - lo) / (hi - lo) * (height - 2 * pad); };
  std::string svg = fmt::format("<svg class=\"trend\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 "
                                "{0} {1}\"><polyline points=\"",
                                width, height);
  for (std::size_t i = 0; i < points.size(); ++i)
    svg += px(pad + step * i) + "," + px(y(points[i].time)) + " ";
  svg += "\"/>";
  // A change point sits halfway between the last run of the old level and the first of the new.
  for (const auto& c : history::change_points(points)) {
    const double x = pad + step * (static_cast<double>(c.index) - 0.5);
    svg += fmt::format("<line class=\"change\" x1=\"{0}\" x2=\"{0}\" y1=\"0\" "
                       "y2=\"{1}\"><title>level ×{2:.3f} from {3} "
                       "(p {4:.1g})</title></line>",
                       px(x), height, c.after / c.before, esc(points[c.index].date), c.p_value);
  }
  // Where opbench called the case another way (typed, boxed): a step there may be opbench's.
  for (const auto& c : history::call_path_changes(points)) {
    const double x = pad + step * (static_cast<double>(c.index) - 0.5);
    svg += fmt::format("<line class=\"called\" x1=\"{0}\" x2=\"{0}\" y1=\"0\" "
                       "y2=\"{1}\"><title>called {2} from {3} "
                       "(was {4})</title></line>",
                       px(x), height, esc(c.after), esc(points[c.index].date), esc(c.before));
  }
  // Where an accepted change (history accept) starts: the gate judges the runs after it against
  // its level.
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].accepted.empty())
      continue;
    const double x = pad + step * (static_cast<double>(i) - 0.5);
    svg += fmt::format("<line class=\"accepted\" x1=\"{0}\" x2=\"{0}\" y1=\"0\" "
                       "y2=\"{1}\"><title>accepted from {2}: {3}</title></line>",
                       px(x), height, esc(points[i].date), esc(points[i].accepted));
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    svg += fmt::format(
        "<circle class=\"night\" cx=\"{}\" cy=\"{}\" r=\"2.5\"><title>{} {}: {}</title></circle>",
        px(pad + step * i), px(y(points[i].time)), esc(points[i].date), esc(points[i].label),
        core::format_duration(points[i].time));
  }
  return svg + "</svg>";
}

// A case's peak bytes over the runs that probed it, as text: the first value and every change,
// with its date (memory is exact: a change is a step, not noise).
static std::string memory_steps(const std::vector<history::Point>& points) {
  std::string out;
  std::int64_t last = -1;
  for (const auto& p : points) {
    if (!p.memory || p.memory->peak_bytes == last)
      continue;
    out += (out.empty() ? "" : " &rarr; ") + core::format_bytes(p.memory->peak_bytes) +
           (last < 0 ? "" : " <span class=\"note\">(" + esc(p.date) + ")</span>");
    last = p.memory->peak_bytes;
  }
  return out.empty() ? "-" : out;
}

void write_history(const results::ResultSet& set, const HtmlExtras& extras, std::ostream& out) {
  out << "<section id=\"history\"><h2>History</h2>\n<p class=\"note\">Each case's time in every "
         "run stored in "
      << esc(extras.history_path)
      << fmt::format(", made with this run's estimator from each run's repetition medians (a run "
                     "recorded with "
                     "another estimator does not shift the trend), oldest first; hover a dot for "
                     "its date and label. A dashed red line is a change point: "
                     "the level moved by {:.0f}% or more and held for {} runs or more on each side "
                     "(rank test). A dotted grey line: "
                     "from there opbench called the case another way (typed or boxed; hover it), "
                     "which moves a small "
                     "operator's time by itself. A dashed green line: a change accepted as "
                     "intended (`history accept`; hover it for the reason). Peak memory: each "
                     "call's peak allocated bytes "
                     "over the runs that probed it, the first and every step, with the run "
                     "that stepped.</p>\n",
                     stats::ChangePointOptions{}.effect_floor * 100,
                     stats::ChangePointOptions{}.min_segment);
  out << "<table "
         "id=\"history-table\"><thead><tr><th>case</th><th>runs</th><th>first</th><th>last</th>"
         "<th>last/first</th><th>trend</th><th>peak memory</th></tr></thead><tbody>\n";
  for (const auto& r : set.cases) {
    const auto it = extras.trends.find(r.c.case_id);
    if (it == extras.trends.end() || it->second.empty())
      continue;
    const auto& points = it->second;
    out << "<tr class=\"trend-row\"><td><code>" << esc(r.c.case_id) << "</code></td><td>"
        << points.size() << "</td><td>" << core::format_duration(points.front().time) << "</td><td>"
        << core::format_duration(points.back().time) << "</td><td>"
        << fmt::format("&times;{:.3f}", points.back().time / points.front().time) << "</td><td>"
        << trend_plot(points) << "</td><td>" << memory_steps(points) << "</td></tr>\n";
  }
  out << "</tbody></table></section>\n";
}

} // namespace opbench::report::html
