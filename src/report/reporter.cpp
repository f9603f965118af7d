#include "opbench/report/reporter.hpp"

#include <cmath>

#include <fmt/format.h>

#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/report/breakdown_reporter.hpp"
#include "opbench/report/csv_reporter.hpp"
#include "opbench/report/gbench_reporter.hpp"
#include "opbench/report/html_reporter.hpp"
#include "opbench/report/json_reporter.hpp"
#include "opbench/report/md_reporter.hpp"
#include "opbench/report/stage_reporter.hpp"
#include "opbench/report/variants_reporter.hpp"
#include "opbench/results/estimate.hpp"

namespace opbench::report {

namespace {

// The views of a result set, gbench's with or without its per-repetition entries.
std::vector<core::Format<results::ResultSet>> views(bool aggregates_only) {
  auto view = [](auto reporter) {
    return
        [reporter](const results::ResultSet& set, std::ostream& out) { reporter.write(set, out); };
  };
  return {{"csv", view(CsvReporter())},
          {"md", view(MarkdownReporter())},
          {"json", view(JsonReporter())},
          {"gbench", view(GbenchReporter(aggregates_only))},
          {"breakdown", view(BreakdownReporter())},
          {"html", view(HtmlReporter())},
          {"stages", view(StageReporter(/*csv=*/false))},
          {"stages-csv", view(StageReporter(/*csv=*/true))},
          {"variants", view(VariantsReporter())}};
}

} // namespace

const std::vector<core::Format<results::ResultSet>>& reporter_formats(bool aggregates_only) {
  static const std::vector<core::Format<results::ResultSet>> k_all = views(false);
  static const std::vector<core::Format<results::ResultSet>> k_aggregates = views(true);
  return aggregates_only ? k_aggregates : k_all;
}

void write_report(const std::string& format, const results::ResultSet& set, std::ostream& out,
                  bool aggregates_only) {
  core::write_as(reporter_formats(aggregates_only), format, set, out);
}

std::string estimate_text(const results::Estimate& e) {
  if (e.repetitions < 2)
    return "1 rep";
  const results::Interval& i = e.interval;
  const std::string interval =
      !std::isfinite(i.half_width) ? ""
      : i.half_width > results::k_wide_interval
          ? fmt::format("±{:.1f}% WIDE: {} · ", i.half_width * 100, core::name_of(i.wide))
          : fmt::format("±{:.1f}%{} · ", i.half_width * 100,
                        i.basis == results::IntervalBasis::repetitions ? " (one process)" : "");
  return interval + fmt::format("{} of {} reps · median {} [{}, {}] {:.0f}% · spread {:.1f}%{}",
                                e.estimator, e.repetitions, core::format_duration(e.median),
                                core::format_duration(e.low), core::format_duration(e.high),
                                e.coverage * 100, e.spread * 100, e.unstable ? " · UNSTABLE" : "");
}

std::string cv_text(const results::CaseResult& r) {
  return std::isfinite(r.timing.noise) ? fmt::format("{:.1f}%", r.timing.noise * 100) : "-";
}

std::string device_times_text(const results::CaseResult& r) {
  using results::Measures;
  const Measures m = r.timing.measures;
  if (m == Measures::host)
    return "";
  const std::string what = m == Measures::gpu     ? "GPU time"
                           : m == Measures::batch ? "batch time (no graph)"
                           : m == Measures::cpu   ? "CPU time (no device work)"
                                                  : "host time with synchronize";
  std::string text = what;
  if (!r.timing.cpu_times.empty())
    text += " · CPU " + core::format_duration(stats::median(r.timing.cpu_times));
  if (!r.timing.batch_times.empty())
    text += " · batch " + core::format_duration(stats::median(r.timing.batch_times));
  return text;
}

std::string console_line(const results::CaseResult& r) {
  if (r.status != results::Status::ok)
    return fmt::format("{}  {}: {}", r.c.case_id, core::name_of(r.status),
                       core::first_line(r.message));
  const std::string device = device_times_text(r);
  // Repetitions set aside for an unusual memory bandwidth (results::set_aside_unusual_bandwidth).
  const std::string aside =
      r.timing.set_aside.empty()
          ? ""
          : fmt::format(" · {} set aside: memory bandwidth off its usual {:.1f} GB/s",
                        r.timing.set_aside.size(), r.timing.usual_bandwidth / 1e9);
  return fmt::format("{}  {} ({}{}){}  p90 {}  cv {}{}  peak {}{}", r.c.case_id,
                     core::format_duration(r.estimate.time), estimate_text(r.estimate), aside,
                     device.empty() ? "" : "  (" + device + ")",
                     core::format_duration(r.summary.p90), cv_text(r),
                     results::noisy(r) ? " (noisy)" : "",
                     r.memory ? core::format_bytes(r.memory->peak_bytes) : "-",
                     r.work.aten_calls ? fmt::format("  {} ATen call(s)", *r.work.aten_calls) : "");
}

} // namespace opbench::report
