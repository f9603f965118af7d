#include "opbench/report/variants_reporter.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>

#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/stats/mann_whitney.hpp"

namespace opbench::report {
namespace {

constexpr double k_confidence = 0.95;

std::vector<double> logs(const std::vector<double>& values) {
  std::vector<double> out;
  for (double v : values) {
    if (v > 0 && std::isfinite(v))
      out.push_back(std::log(v));
  }
  return out;
}

bool timed(const results::CaseResult& r) {
  return r.status == results::Status::ok && r.estimate.time > 0 && std::isfinite(r.estimate.time);
}

// The check's record for people: "passed, 6 before and 6 after timing (worst 0.02 of the
// tolerance)", "failed: ...", "not made: ...", "none".
std::string check_text(const results::CaseResult& r) {
  if (!r.check)
    return "none";
  const results::OutputCheck& k = *r.check;
  if (!k.failed.empty())
    return "failed: " + core::first_line(k.failed);
  if (!k.not_made.empty())
    return "not made: " + k.not_made;
  if (k.before == 0)
    return "none";
  return fmt::format("passed, {} before and {} after timing (worst {:.2g} of the tolerance)",
                     k.before, k.after, k.worst);
}

// Why `r` (an implementation, else its baseline when `baseline`) gives no speedup; "" when it may.
std::string no_speedup(const results::CaseResult& r, bool baseline) {
  const std::string who = baseline ? "baseline " : "";
  if (r.status != results::Status::ok) {
    return who + core::name_of(r.status) +
           (r.message.empty() ? "" : ": " + core::first_line(r.message));
  }
  if (!timed(r))
    return who + "not timed";
  if (r.estimate.unstable)
    return who + "UNSTABLE: its repetitions disagree past x" +
           fmt::format("{}", results::k_unstable_ratio);
  if (baseline)
    return "";
  if (r.check && !r.check->failed.empty())
    return "failed its check: " + core::first_line(r.check->failed);
  if (r.check && !r.check->not_made.empty())
    return "not checked: " + r.check->not_made;
  if (!r.check || !r.check->passed())
    return "not checked against the baseline";
  return "";
}

} // namespace

std::vector<Speedup> speedups(const results::ResultSet& set) {
  std::map<std::string, const results::CaseResult*> baselines;
  for (const auto& r : set.cases) {
    if (r.c.variant.baseline)
      baselines.emplace(results::variant_key(r.c), &r);
  }
  std::vector<Speedup> out;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& r : set.cases) {
    if (r.c.variant.group.empty() || r.c.variant.baseline)
      continue;
    Speedup s;
    s.group = r.c.variant.group;
    s.case_id = r.c.case_id;
    s.op = r.c.op;
    s.baseline_time = s.time = s.speedup = s.low = s.high = nan;
    s.check = check_text(r);
    if (timed(r))
      s.time = r.estimate.time;
    const auto it = baselines.find(results::variant_key(r.c));
    if (it == baselines.end()) {
      s.note = "baseline not run";
      out.push_back(s);
      continue;
    }
    const results::CaseResult& base = *it->second;
    s.baseline_id = base.c.case_id;
    if (timed(base))
      s.baseline_time = base.estimate.time;
    s.note = no_speedup(r, false);
    if (s.note.empty())
      s.note = no_speedup(base, true);
    if (!s.note.empty()) {
      out.push_back(s);
      continue;
    }
    const auto shift = stats::shift_interval(logs(base.timing.repetition_medians),
                                             logs(r.timing.repetition_medians), k_confidence);
    // The shift is log(implementation / baseline); the speedup is its reciprocal.
    s.speedup = std::exp(-shift.estimate);
    s.low = std::exp(-shift.high);
    s.high = std::exp(-shift.low);
    out.push_back(s);
  }
  return out;
}

std::vector<MeanSpeedup> mean_speedups(const std::vector<Speedup>& speedups) {
  std::vector<MeanSpeedup> out;
  std::map<std::pair<std::string, std::string>, std::pair<double, std::size_t>> sums;
  for (const auto& s : speedups) {
    if (!(s.speedup > 0) || !std::isfinite(s.speedup))
      continue;
    auto [it, fresh] = sums.try_emplace({s.group, s.op}, 0.0, 0);
    if (fresh)
      out.push_back({s.group, s.op, 0, 0});
    it->second.first += std::log(s.speedup);
    ++it->second.second;
  }
  for (auto& m : out) {
    const auto& [log_sum, n] = sums.at({m.group, m.op});
    m.geometric_mean = std::exp(log_sum / static_cast<double>(n));
    m.points = n;
  }
  return out;
}

std::string speedup_text(const Speedup& s) {
  if (!std::isfinite(s.speedup))
    return "-";
  auto end = [](double v) {
    return std::isfinite(v) && v > 0 ? fmt::format("{:.3f}", v) : std::string("unbounded");
  };
  return fmt::format("x{:.3f} [{}, {}]", s.speedup, end(s.low), end(s.high));
}

void VariantsReporter::write(const results::ResultSet& set, std::ostream& out) const {
  const auto all = speedups(set);
  out << "# Implementations side by side\n\n";
  if (all.empty()) {
    out << "No variant groups in this result: a config's \"variants\" puts implementations of one "
           "computation side by side (docs/custom-ops.md).\n";
    return;
  }
  out << "Speedup = the baseline's time / the implementation's (over 1: faster than the "
         "baseline): the Hodges-Lehmann estimate over the repetition medians with its "
      << fmt::format("{:.0f}", k_confidence * 100)
      << "% interval. Each repetition holds the implementation's outputs against the baseline's "
         "before and after it is timed (the check column); a row shows a speedup only when the "
         "check passed, both measured ok and their repetitions agree, and says why not "
         "otherwise.\n\n";
  out << "| group | baseline | time | implementation | time | check | speedup |\n"
         "|---|---|---:|---|---:|---|---|\n";
  for (const auto& s : all) {
    out << "| " << core::markdown_cell(s.group) << " | `"
        << core::markdown_code_cell(s.baseline_id.empty() ? "-" : s.baseline_id) << "` | "
        << (std::isfinite(s.baseline_time) ? core::format_duration(s.baseline_time) : "-") << " | `"
        << core::markdown_code_cell(s.case_id) << "` | "
        << (std::isfinite(s.time) ? core::format_duration(s.time) : "-") << " | "
        << core::markdown_cell(s.check) << " | "
        << core::markdown_cell(s.note.empty() ? speedup_text(s) : "no speedup: " + s.note)
        << " |\n";
  }
  out << "\n| group | implementation | points | geometric mean speedup |\n|---|---|---:|---:|\n";
  for (const auto& m : mean_speedups(all)) {
    out << "| " << core::markdown_cell(m.group) << " | " << core::markdown_cell(m.op) << " | "
        << m.points << " | " << fmt::format("x{:.3f}", m.geometric_mean) << " |\n";
  }
}

} // namespace opbench::report
