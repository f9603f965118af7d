#include "opbench/report/html_reporter.hpp"

#include "html_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/report/stage_reporter.hpp"
#include "opbench/results/estimate.hpp"

namespace opbench::report {
namespace {

using namespace html;

// ---- summary -------------------------------------------------------------------------------

void write_summary(const results::ResultSet& set, std::ostream& out) {
  const Json& ctx = set.context;
  const results::StatusCounts counts = results::count_statuses(set.cases);
  std::set<std::string> devices;
  for (const auto& r : set.cases)
    devices.insert(r.c.device);
  out << "<section id=\"summary\"><h2>Summary</h2><dl>\n";
  auto item = [&](const std::string& name, const std::string& value) {
    if (!value.empty())
      out << "<dt>" << esc(name) << "</dt><dd>" << esc(value) << "</dd>\n";
  };
  item("date", context_text(ctx, "date"));
  item("host", context_text(ctx, "host"));
  item("machine", context_text(ctx, "cpu_model"));
  item("logical cores", context_text(ctx, "logical_cores"));
  std::string device_list;
  for (const auto& d : devices)
    device_list += (device_list.empty() ? "" : ", ") + d;
  item("devices", device_list);
  if (ctx.contains("cuda_device_name"))
    item("GPU", context_text(ctx, "cuda_device_name"));
  item("LibTorch", context_text(ctx, "libtorch_version"));
  item("opbench", context_text(ctx, "opbench_version"));
  item("host allocator", context_text(ctx, "host_allocator"));
  item("command", context_text(ctx, "command_line"));
  out << fmt::format(
      "<dt>cases</dt><dd id=\"counts\"><span class=\"ok\">{} ok</span>, "
      "<span class=\"error\">{} error</span>, <span class=\"skipped\">{} skipped</span>{}{}</dd>\n",
      counts.ok, counts.error, counts.skipped,
      counts.compiler_failed > 0
          ? fmt::format(", <span class=\"compiler\">{} compiler failed</span>",
                        counts.compiler_failed)
          : "",
      counts.timeout > 0 ? fmt::format(", <span class=\"error\">{} timeout</span>", counts.timeout)
                         : "");
  out << "</dl>\n";
  std::vector<std::string> warnings;
  if (set.summary.contains("warning") && set.summary["warning"].is_string()) {
    warnings.push_back(set.summary["warning"].get<std::string>());
  }
  if (set.summary.contains("slow_spells") && set.summary["slow_spells"].is_object()) {
    const Json& s = set.summary["slow_spells"];
    const auto again = s.value("repetitions_measured_again", 0);
    if (again > 0) {
      warnings.push_back(
          fmt::format("The speed canary found the machine slow {} time(s) in {} repetitions; "
                      "those repetitions were measured again.",
                      again, s.value("repetitions", 0)));
    }
  }
  if (!warnings.empty()) {
    out << "<ul class=\"warnings\">";
    for (const auto& w : warnings)
      out << "<li>" << esc(w) << "</li>";
    out << "</ul>\n";
  }
  out << "</section>\n";
}

// ---- cases ---------------------------------------------------------------------------------

// Where a case's times lie around its time: the block samples as ticks (at most
// k_strip_samples evenly spaced order statistics), each repetition's median as a dot, the case's
// time (its estimate) as a bar; a log axis from half to twice it, values beyond drawn at the edge.
std::string strip_plot(const results::CaseResult& r) {
  constexpr double width = 220, height = 22, pad = 4;
  const double time = r.estimate.time;
  if (!(time > 0))
    return "";
  const LogAxis x{time / 2, time * 2, pad, width - pad};
  auto at = [&](double v) { return std::clamp(x(std::max(v, 1e-300)), pad, width - pad); };
  std::ostringstream svg;
  svg << fmt::format("<svg class=\"strip\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">",
                     width, height, width, height);
  svg << fmt::format("<line class=\"axis\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", pad,
                     width - pad, height - 2, height - 2);
  std::vector<double> sorted = r.samples;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t shown = std::min(sorted.size(), HtmlReporter::k_strip_samples);
  for (std::size_t i = 0; i < shown; ++i) {
    const std::size_t rank = shown == 1 ? 0 : i * (sorted.size() - 1) / (shown - 1);
    svg << fmt::format("<line class=\"sample\" x1=\"{0}\" x2=\"{0}\" y1=\"4\" y2=\"18\"/>",
                       px(at(sorted[rank])));
  }
  svg << fmt::format("<line class=\"median\" x1=\"{0}\" x2=\"{0}\" y1=\"1\" y2=\"21\"/>",
                     px(at(time)));
  for (double m : r.timing.repetition_medians) {
    svg << fmt::format("<circle class=\"rep\" cx=\"{}\" cy=\"11\" r=\"3\"><title>repetition median "
                       "{}</title></circle>",
                       px(at(m)), core::format_duration(m));
  }
  svg << "</svg>";
  return svg.str();
}

void write_cases(const results::ResultSet& set, const std::string& report_dir, std::ostream& out) {
  // Relative to the report when it has a place, so the report and its traces move together.
  auto trace_link = [&](const std::string& trace) {
    if (trace.front() != '/')
      return trace;
    return report_dir.empty() ? "file://" + trace : core::relative_path(trace, report_dir);
  };
  std::set<std::string> tags, categories, shapes, kinds;
  for (const auto& r : set.cases) {
    tags.insert(r.c.tags.begin(), r.c.tags.end());
    if (!r.c.category.empty())
      categories.insert(r.c.category);
    if (!r.c.shape_class.empty())
      shapes.insert(r.c.shape_class);
    kinds.insert(core::name_of(r.c.kind));
  }
  auto select = [&](const char* id, const char* label, const std::set<std::string>& values) {
    out << "<label>" << label << " <select id=\"" << id << "\"><option value=\"\">all</option>";
    for (const auto& v : values)
      out << "<option>" << esc(v) << "</option>";
    out << "</select></label>\n";
  };
  out << "<section id=\"cases\"><h2>Cases</h2>\n";
  out << "<p class=\"note\">Distribution: the case's timed blocks (up to "
      << HtmlReporter::k_strip_samples
      << " evenly spaced order statistics) as ticks, each repetition's median as a dot, the case's "
         "time (the "
         "estimator over the repetition medians) as a bar, on a log axis from half to twice it. "
         "Click a column "
         "title to sort.</p>\n";
  out << "<div class=\"filters\"><label>case <input id=\"filter-text\" type=\"search\" "
         "placeholder=\"part of the case id\"></label>\n";
  select("filter-tag", "tag", tags);
  select("filter-category", "category", categories);
  select("filter-shape", "shape class", shapes);
  select("filter-kind", "kind", kinds);
  out << "<span><span id=\"shown\">" << set.cases.size() << "</span> of " << set.cases.size()
      << " shown</span></div>\n";
  out << "<table id=\"case-table\"><thead><tr>"
         "<th data-num=\"0\">case</th><th data-num=\"0\">status</th><th data-num=\"1\">time</th>"
         "<th data-num=\"1\">across repetitions</th><th data-num=\"0\">distribution</th>"
         "<th data-num=\"0\">measures</th><th data-num=\"1\">p90</th><th data-num=\"1\">cv</th>"
         "<th data-num=\"1\">peak memory</th><th data-num=\"1\">% of "
         "roof</th></tr></thead><tbody>\n";
  for (const auto& r : set.cases) {
    const bool ok = r.status == results::Status::ok;
    const std::string status =
        ok ? (results::noisy(r) ? "ok (noisy)" : "ok") : core::name_of(r.status);
    out << "<tr class=\"case " << esc(core::name_of(r.status)) << "\" data-id=\""
        << esc(r.c.case_id) << "\" data-tags=\"" << esc(core::join(r.c.tags, " "))
        << "\" data-category=\"" << esc(r.c.category) << "\" data-shape=\"" << esc(r.c.shape_class)
        << "\" data-kind=\"" << esc(core::name_of(r.c.kind)) << "\">";
    out << "<td><code>" << esc(r.c.case_id) << "</code>"
        << (r.trace.empty()
                ? ""
                : " <a class=\"trace\" href=\"" + esc(trace_link(r.trace)) + "\">trace</a>")
        << "</td>";
    out << "<td data-v=\"" << esc(status) << "\"" << (ok ? "" : " title=\"" + esc(r.message) + "\"")
        << ">" << esc(status) << (ok ? "" : ": " + esc(core::first_line(r.message))) << "</td>";
    out << "<td data-v=\"" << num(ok ? r.estimate.time : k_nan) << "\">"
        << (ok ? core::format_duration(r.estimate.time) : "-") << "</td>";
    out << "<td data-v=\"" << num(ok ? r.estimate.spread : k_nan) << "\">"
        << (ok ? esc(estimate_text(r.estimate)) : "-") << "</td>";
    out << "<td>" << (ok ? strip_plot(r) : "") << "</td>";
    out << "<td>"
        << (ok ? esc(r.timing.measures == results::Measures::host ? std::string("host")
                                                                  : device_times_text(r))
               : "-")
        << "</td>";
    out << "<td data-v=\"" << num(ok ? r.summary.p90 : k_nan) << "\">"
        << (ok ? core::format_duration(r.summary.p90) : "-") << "</td>";
    out << "<td data-v=\"" << num(ok ? r.timing.noise : k_nan) << "\">" << (ok ? cv_text(r) : "-")
        << "</td>";
    out << "<td data-v=\"" << (r.memory ? r.memory->peak_bytes : 0) << "\">"
        << (r.memory ? core::format_bytes(r.memory->peak_bytes) : "-") << "</td>";
    out << "<td data-v=\"" << num(r.work.percent_of_peak.value_or(k_nan)) << "\">"
        << (r.work.percent_of_peak
                ? fmt::format("{:.1f}% {}{}", *r.work.percent_of_peak, esc(r.work.bound),
                              r.work.ceiling.empty() ? "" : " (" + esc(r.work.ceiling) + ")")
                : "-")
        << "</td></tr>\n";
  }
  out << "</tbody></table></section>\n";
}

constexpr const char* k_style = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1b1b}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em}dt{font-weight:600}dd{margin:0}
.warnings{background:#fff6e0;border:1px solid #f0c36d;padding:.5em 2em}.note{color:#555;font-size:.92em}
.filters{display:flex;flex-wrap:wrap;gap:1em;margin:.5em 0;align-items:center}
table{border-collapse:collapse;font-size:.9em}th,td{padding:2px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:middle}
thead th{position:sticky;top:0;background:#f4f4f4;cursor:pointer}
tr.error td,.error{color:#b00020}tr.skipped td{color:#777}
svg line.sample{stroke:#9aa7b8;stroke-width:1}svg line.median{stroke:#1b1b1b;stroke-width:2}
svg circle.rep{fill:#d2691e}svg line.axis{stroke:#ccc}svg.roofline line.grid{stroke:#eee}svg text{font-size:11px;fill:#444}
polyline.roof{fill:none;stroke:#b00020;stroke-width:2}circle.point{fill:#2a6fdb;fill-opacity:.6}circle.point.compute{fill:#7b3fbf}
svg line.one{stroke:#aaa}svg line.interval{stroke:#555;stroke-width:2}circle.ratio-dot{fill:#555}
tr.slower td,.slower{color:#b00020}tr.slower circle.ratio-dot{fill:#b00020}
tr.faster td,.faster{color:#1a7f37}tr.faster circle.ratio-dot{fill:#1a7f37}
td.memory.more{color:#b00020;font-weight:600}
svg.trend polyline{fill:none;stroke:#2a6fdb}circle.night{fill:#2a6fdb}svg.trend line.change{stroke:#b00020;stroke-width:1.5;stroke-dasharray:3 2}
svg.trend line.called{stroke:#888;stroke-width:1.5;stroke-dasharray:1 2}svg.trend line.accepted{stroke:#1a7f37;stroke-width:1.5;stroke-dasharray:3 2}
svg.speedup rect.gain{fill:#1a7f37}svg.speedup rect.loss{fill:#b00020}span.compile{color:#555;font-size:.85em}
code{font-size:.95em}td:first-child{max-width:36em;overflow-wrap:anywhere}
)";

// Filtering and sorting of the case table; marks the body ready for the browser test.
constexpr const char* k_script = R"(
(function () {
  var table = document.getElementById('case-table');
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var text = document.getElementById('filter-text');
  var selects = ['tag', 'category', 'shape', 'kind'].map(function (k) {
    return [k, document.getElementById('filter-' + k)];
  });
  function apply() {
    var t = text.value.toLowerCase(), shown = 0;
    rows.forEach(function (r) {
      var ok = !t || r.dataset.id.toLowerCase().indexOf(t) >= 0;
      selects.forEach(function (s) {
        var v = s[1].value;
        if (!v) return;
        var have = s[0] === 'tag' ? r.dataset.tags.split(' ') : [r.dataset[s[0]]];
        if (have.indexOf(v) < 0) ok = false;
      });
      r.hidden = !ok;
      if (ok) shown++;
    });
    document.getElementById('shown').textContent = shown;
  }
  text.addEventListener('input', apply);
  selects.forEach(function (s) { s[1].addEventListener('change', apply); });
  table.tHead.addEventListener('click', function (e) {
    var th = e.target.closest('th');
    if (!th) return;
    var i = th.cellIndex, numeric = th.dataset.num === '1';
    var dir = th.dataset.dir === 'asc' ? -1 : 1;
    th.dataset.dir = dir === 1 ? 'asc' : 'desc';
    function key(r) {
      var c = r.cells[i];
      var v = c.dataset.v !== undefined ? c.dataset.v : c.textContent;
      return numeric ? parseFloat(v) : v;
    }
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      return (x < y ? -1 : x > y ? 1 : 0) * dir;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
  document.body.dataset.ready = 'yes';
  document.body.dataset.rows = String(rows.length);
})();
)";

} // namespace

void HtmlReporter::write(const results::ResultSet& set, std::ostream& out) const {
  const StageTable stages = make_stage_table(set);
  const std::vector<Speedup> variants = speedups(set);
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
         "'unsafe-inline'; "
         "script-src 'unsafe-inline'; img-src data:\">\n"
         "<meta name=\"viewport\" content=\"width=device-width\">\n<title>opbench report "
      << esc(context_text(set.context, "date")) << "</title>\n<style>" << k_style
      << "</style></head>\n<body>\n";
  out << "<h1>opbench report</h1>\n<nav><a href=\"#summary\">summary</a> &middot; <a "
         "href=\"#cases\">cases</a> "
         "&middot; <a href=\"#roofline\">roofline</a>"
      << (m_extras.comparison != nullptr ? " &middot; <a href=\"#compare\">comparison</a>" : "")
      << (stages.rows.empty() ? "" : " &middot; <a href=\"#stages\">stages</a>")
      << (variants.empty() ? "" : " &middot; <a href=\"#variants\">variants</a>")
      << (m_extras.history_path.empty() ? "" : " &middot; <a href=\"#history\">history</a>")
      << "</nav>\n";
  write_summary(set, out);
  if (m_extras.comparison != nullptr)
    write_comparison(set, m_extras, out);
  write_cases(set, m_extras.report_dir, out);
  if (!stages.rows.empty())
    write_stages(stages, out);
  if (!variants.empty())
    write_variants(variants, out);
  write_roofline(set, out);
  if (!m_extras.history_path.empty())
    write_history(set, m_extras, out);
  out << "<script>" << k_script << "</script>\n</body></html>\n";
}

} // namespace opbench::report
