#include "opbench/results/interval.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "opbench/core/strings.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::results {

namespace {
// Whether `medians` (finite, positive, two or more) fall into two levels: the unstable ratio, or
// a gap between neighbours in sorted order over half their whole range with two on each side.
bool two_levels(std::vector<double> medians) {
  if (is_unstable(medians))
    return true;
  if (medians.size() < 4)
    return false;
  std::sort(medians.begin(), medians.end());
  const double range = medians.back() - medians.front();
  for (std::size_t i = 2; i + 1 < medians.size(); ++i) {
    if (medians[i] - medians[i - 1] > range / 2)
      return true;
  }
  return false;
}

// Whether `values` (in process order, three or more) rise or fall strictly, one after another.
bool monotonic(const std::vector<double>& values) {
  if (values.size() < 3)
    return false;
  bool rising = true, falling = true;
  for (std::size_t i = 1; i < values.size(); ++i) {
    rising = rising && values[i] > values[i - 1];
    falling = falling && values[i] < values[i - 1];
  }
  return rising || falling;
}
} // namespace

namespace {
// What interval_of sees of the medians: the finite positive ones, each group's fastest in group
// order, and whether the groups are the processes.
struct Groups {
  std::vector<double> medians;
  std::vector<double> fastest; // in group order
  bool by_process = false;
  // k_spread_factor * d; NaN with fewer than two groups
  double spread_width() const {
    if (fastest.size() < 2)
      return std::numeric_limits<double>::quiet_NaN();
    std::vector<double> sorted = fastest;
    std::sort(sorted.begin(), sorted.end());
    return k_spread_factor * (sorted[1] - sorted[0]) / sorted[0];
  }
};

Groups groups_of(const std::vector<double>& repetition_medians,
                 const std::vector<int>& repetition_processes) {
  Groups g;
  g.by_process =
      repetition_processes.size() == repetition_medians.size() &&
      std::set<int>(repetition_processes.begin(), repetition_processes.end()).size() >= 2;
  std::map<int, double> fastest_of; // group -> its fastest median, in group order
  for (std::size_t i = 0; i < repetition_medians.size(); ++i) {
    const double m = repetition_medians[i];
    if (!std::isfinite(m) || m <= 0)
      continue;
    g.medians.push_back(m);
    const int group = g.by_process ? repetition_processes[i] : static_cast<int>(i);
    const auto [it, first] = fastest_of.emplace(group, m);
    if (!first)
      it->second = std::min(it->second, m);
  }
  for (const auto& [group, fastest] : fastest_of)
    g.fastest.push_back(fastest);
  return g;
}
} // namespace

double spread_width(const std::vector<double>& repetition_medians,
                    const std::vector<int>& repetition_processes) {
  return groups_of(repetition_medians, repetition_processes).spread_width();
}

double run_allowance(const std::vector<double>& spread_widths) {
  std::vector<double> finite;
  for (double w : spread_widths) {
    if (std::isfinite(w))
      finite.push_back(w);
  }
  return finite.empty() ? k_run_allowance : std::max(k_run_allowance, stats::median(finite));
}

double allowance_of(const Interval& interval) {
  return std::isfinite(interval.allowance) ? interval.allowance : k_run_allowance;
}

Interval interval_of(double time, const std::vector<double>& repetition_medians,
                     const std::vector<int>& repetition_processes, double allowance) {
  Interval out;
  const Groups g = groups_of(repetition_medians, repetition_processes);
  out.basis = g.by_process ? IntervalBasis::processes : IntervalBasis::repetitions;
  out.allowance = std::max(k_run_allowance, std::isfinite(allowance) ? allowance : 0.0);
  const double own = g.spread_width();
  if (!std::isfinite(own) || !(time > 0) || !std::isfinite(time))
    return out;
  out.half_width = std::max(out.allowance, own);
  out.low = time * (1 - out.half_width);
  out.high = time * (1 + out.half_width);
  if (out.half_width > k_run_allowance) {
    out.wide = own < out.allowance                    ? WideReason::noisy_run
               : two_levels(g.medians)                ? WideReason::bimodal
               : g.by_process && monotonic(g.fastest) ? WideReason::drifting
               : g.by_process                         ? WideReason::processes_disagree
                                                      : WideReason::repetitions_disagree;
  }
  return out;
}

void IntervalTally::add(const CaseResult& result, double target) {
  const Interval& interval = result.estimate.interval;
  if (result.status != Status::ok || !std::isfinite(interval.half_width))
    return;
  ++cases;
  const auto& processes = result.timing.repetition_processes;
  ++by_processes[static_cast<int>(std::set<int>(processes.begin(), processes.end()).size())];
  if (target > 0 && interval.half_width > target)
    ++not_reached;
  if (interval.half_width > k_wide_interval)
    ++wide[interval.wide];
  half_widths.push_back(interval.half_width);
  allowance = std::max(allowance, allowance_of(interval));
}

Json IntervalTally::to_json(double target) const {
  Json processes = Json::object(), reasons = Json::object();
  for (const auto& [n, count] : by_processes)
    processes[std::to_string(n)] = count;
  std::size_t wide_cases = 0;
  for (const auto& [reason, count] : wide) {
    reasons[core::name_of(reason)] = count;
    wide_cases += count;
  }
  return {{"target", target},
          {"allowance", allowance},
          {"cases", cases},
          {"by_processes", processes},
          {"not_reached", not_reached},
          {"wide", wide_cases},
          {"wide_by_reason", reasons},
          {"median_half_width",
           half_widths.empty() ? Json(nullptr) : Json(stats::median(half_widths))}};
}

std::string IntervalTally::describe(double target) const {
  if (cases == 0)
    return "interval: no case with two or more repetitions";
  std::vector<std::string> after, reasons;
  for (const auto& [n, count] : by_processes)
    after.push_back(fmt::format("{} in {} process(es)", count, n));
  std::size_t wide_cases = 0;
  for (const auto& [reason, count] : wide) {
    reasons.push_back(fmt::format("{} {}", count, core::name_of(reason)));
    wide_cases += count;
  }
  std::string text =
      target > 0 ? fmt::format("interval: {} of {} cases within +-{:.1f}% ({})",
                               cases - not_reached, cases, target * 100, core::join(after, ", "))
                 : fmt::format("interval: {} cases ({})", cases, core::join(after, ", "));
  if (wide_cases > 0) {
    text += fmt::format("; {} wider than +-{:.0f}% ({})", wide_cases, k_wide_interval * 100,
                        core::join(reasons, ", "));
  }
  text += fmt::format("; median +-{:.1f}%", stats::median(half_widths) * 100);
  if (allowance > k_run_allowance) {
    text += fmt::format("; a noisy run: no case narrower than +-{:.1f}%, its typical case's",
                        allowance * 100);
  }
  return text;
}

} // namespace opbench::results
