#include "opbench/report/md_reporter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/report/reporter.hpp"
#include "opbench/results/estimate.hpp"

namespace opbench::report {
namespace {

// A Markdown table cell (core::markdown_cell), or inside a code span (core::markdown_code_cell).
std::string cell(const std::string& text) {
  return core::markdown_cell(text);
}
std::string code(const std::string& text) {
  return core::markdown_code_cell(text);
}

std::string context_value(const Json& context, const char* key) {
  if (!context.contains(key))
    return "-";
  const Json& v = context[key];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

} // namespace

void MarkdownReporter::write(const results::ResultSet& set, std::ostream& out) const {
  const Json& ctx = set.context;
  out << "# opbench results\n\n";
  for (const char* key : {"date", "opbench_version", "libtorch_version", "host", "cpu_model",
                          "threads_default", "host_allocator", "command_line"}) {
    if (ctx.contains(key))
      out << "- **" << key << "**: " << cell(context_value(ctx, key)) << "\n";
  }
  out << "- **cases**: " << results::count_statuses(set.cases).text() << "\n";
  out << "- **time**: the case's time, the estimator (`fastest-third`: the mean of the fastest "
         "third of the "
         "repetition medians; `min`: the fastest one; `median`: their median) over the repetition "
         "medians; *across repetitions*: the interval (±: where another run of this build is "
         "expected to find the time, docs/results.md; WIDE past ±5%, with why), the estimator, the "
         "repetitions, their median with its distribution-free interval and the interval's "
         "coverage, "
         "their spread ((max - min) / median; each repetition: fresh inputs at another placement, "
         "at another moment); cv: the typical repetition's coefficient of variation of its "
         "blocks; p90, p99 and samples: the timed blocks of all repetitions pooled\n"
         "- **measures**: what the time is: host (CPU cases: the host clock); on CUDA, GPU time "
         "(device execution, launches hidden in CUDA-graph replays), with the CPU time (the host's "
         "time in one call) and the batch time (back-to-back eager calls) beside it\n\n";
  out << "| case | status | time | across repetitions | measures | p90 | p99 | cv | samples | peak "
         "memory | allocs | GFLOP/s | GB/s | % of roof |\n";
  out << "|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  auto rate = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.2f}", *v / 1e9) : std::string("-");
  };
  for (const auto& r : set.cases) {
    const auto& s = r.summary;
    const std::string status = r.status == results::Status::ok
                                   ? (results::noisy(r) ? "ok (noisy)" : "ok")
                                   : core::name_of(r.status) + ": " + core::first_line(r.message);
    out << "| `" << code(r.c.case_id) << "` | " << cell(status) << " | "
        << core::format_duration(r.estimate.time) << " | "
        << (r.status == results::Status::ok ? estimate_text(r.estimate) : "-") << " | "
        << (r.status != results::Status::ok                ? "-"
            : r.timing.measures == results::Measures::host ? "host"
                                                           : cell(device_times_text(r)))
        << " | " << core::format_duration(s.p90) << " | " << core::format_duration(s.p99) << " | "
        << (r.status == results::Status::ok ? cv_text(r) : "-") << " | " << s.count << " | "
        << (r.memory ? core::format_bytes(r.memory->peak_bytes) : "-")
        << (r.memory && r.memory->kept_for_backward_bytes
                ? ", kept for backward " + core::format_bytes(*r.memory->kept_for_backward_bytes)
                : "")
        << " | " << (r.memory ? std::to_string(r.memory->allocations) : "-") << " | "
        << rate(r.work.flops_per_second) << " | " << rate(r.work.bytes_per_second) << " | "
        << (r.work.percent_of_peak
                ? fmt::format("{:.1f}% {}{}", *r.work.percent_of_peak, r.work.bound,
                              r.work.ceiling.empty() ? "" : " (" + r.work.ceiling + ")")
                : "-")
        << " |\n";
  }
  // Cases far from their roof: where there is most to gain.
  std::vector<const results::CaseResult*> far;
  for (const auto& r : set.cases) {
    if (r.status == results::Status::ok && r.work.percent_of_peak && *r.work.percent_of_peak < 10.0)
      far.push_back(&r);
  }
  std::sort(far.begin(), far.end(), [](const auto* a, const auto* b) {
    return *a->work.percent_of_peak < *b->work.percent_of_peak;
  });
  if (!far.empty()) {
    out << "\n## Far from the roof (under 10% of the calibrated peak that bounds them)\n\n";
    out << "| case | bound | intensity (FLOP/byte) | % of roof |\n|---|---|---:|---:|\n";
    for (const auto* r : far) {
      out << "| `" << code(r->c.case_id) << "` | " << r->work.bound << " | "
          << (r->work.intensity ? fmt::format("{:.2f}", *r->work.intensity) : "-") << " | "
          << fmt::format("{:.2f}%", *r->work.percent_of_peak) << " |\n";
    }
  } else if (!set.context.contains("peaks_file") || set.context["peaks_file"].is_null()) {
    out << "\n% of roof needs calibrated peaks: run `opbench calibrate` once on this machine.\n";
  }
  // Cases over their roof, each with its reason (cost::apply_roofline).
  bool over_header = false;
  for (const auto& r : set.cases) {
    if (r.work.over_peak.empty())
      continue;
    if (!over_header) {
      out << "\n## Over the roof (over 100% of the calibrated peak, and why)\n\n"
          << "| case | % of roof | why |\n|---|---:|---|\n";
      over_header = true;
    }
    out << "| `" << code(r.c.case_id) << "` | "
        << fmt::format("{:.1f}% {}", r.work.percent_of_peak.value_or(0), r.work.ceiling) << " | "
        << cell(r.work.over_peak) << " |\n";
  }
  if (set.summary.contains("warning")) {
    out << "\n**Warning**: " << cell(set.summary["warning"].get<std::string>()) << "\n";
  }
}

} // namespace opbench::report
