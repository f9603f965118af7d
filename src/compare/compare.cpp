#include "opbench/compare/compare.hpp"

#include "notes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/stats/mann_whitney.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::compare {
namespace {

using namespace detail;

using stats::k_nan;

// The case's time with `estimator`: as recorded when the run used it, else made again from the
// repetition medians (files with none kept have one repetition: any estimator gives its time).
double time_with(const results::CaseResult& r, const std::string& estimator) {
  if (r.estimate.estimator == estimator || r.timing.repetition_medians.empty())
    return r.estimate.time;
  return results::estimate_with(estimator, r.timing.repetition_medians);
}

// `threshold`: the relative change that counts for this case (its rule's, else the command's).
// `speed`: what NEW's times are divided by for the machine's speed (1: nothing).
CaseComparison compare_case(const results::CaseResult& base, const results::CaseResult& candidate,
                            const Json& base_context, const Json& new_context,
                            const CompareOptions& options, double threshold,
                            const std::string& estimator, double speed) {
  CaseComparison c;
  c.speed_factor = speed;
  c.threshold = threshold;
  c.case_id = base.c.case_id;
  c.base_replicates = base.timing.repetition_medians.size();
  c.new_replicates = candidate.timing.repetition_medians.size();
  c.base_processes = recorded_processes(base_context, base.timing).size();
  c.new_processes = recorded_processes(new_context, candidate.timing).size();
  c.base_time = base.status == results::Status::ok ? time_with(base, estimator) : k_nan;
  c.new_time = candidate.status == results::Status::ok ? time_with(candidate, estimator) : k_nan;
  c.ratio = c.new_time / c.base_time / speed;
  c.p_value = k_nan;
  c.ratio_low = k_nan;
  c.ratio_high = k_nan;
  if (base.status != results::Status::ok || candidate.status != results::Status::ok) {
    c.verdict = results::Verdict::unknown;
    c.reason =
        "status base " + core::name_of(base.status) + ", new " + core::name_of(candidate.status);
    return c;
  }
  if (base.timing.measures != candidate.timing.measures) {
    // GPU time against the batch time of an older file, say: two different quantities.
    c.verdict = results::Verdict::unknown;
    c.reason = "different times: base " + core::name_of(base.timing.measures) + ", new " +
               core::name_of(candidate.timing.measures);
    return c;
  }
  if (base.timing.restored != candidate.timing.restored) {
    // An in-place case timed on its configured inputs against one timed on what earlier calls
    // left (infinities, for exp_): the same call on different data.
    auto said = [](const std::vector<std::string>& names) {
      return names.empty() ? std::string("none") : core::join(names, ",");
    };
    c.verdict = results::Verdict::unknown;
    c.reason = "different inputs: base restores " + said(base.timing.restored) + ", new restores " +
               said(candidate.timing.restored) + " before every timed call";
    return c;
  }
  if (c.base_replicates < options.min_replicates || c.new_replicates < options.min_replicates) {
    c.verdict = results::Verdict::unknown;
    c.reason = "too few repetitions (" + std::to_string(c.base_replicates) + " and " +
               std::to_string(c.new_replicates) + ", need " +
               std::to_string(options.min_replicates) + ")";
    return c;
  }
  if (base.estimate.unstable || candidate.estimate.unstable) {
    // Repetitions at two levels: which one each side's estimate took is chance.
    c.verdict = results::Verdict::unknown;
    c.reason = fmt::format("unstable on the {} side: its repetition medians are over {}x apart",
                           base.estimate.unstable && candidate.estimate.unstable ? "base and new"
                           : base.estimate.unstable                              ? "base"
                                                                                 : "new",
                           results::k_unstable_ratio);
    return c;
  }
  if (c.base_processes < 2 || c.new_processes < 2) {
    // Repetitions of one process share what is fixed for it: they cannot tell a change of the
    // code from that process's state.
    c.verdict = results::Verdict::unknown;
    c.reason =
        std::string("one process on the ") + (c.base_processes < 2 ? "base" : "new") +
        " side: its repetitions share that process's layout, so they cannot tell a change from it "
        "(run with --processes 2 or more, the default 3, or --isolate)";
    return c;
  }
  std::vector<double> new_medians = candidate.timing.repetition_medians;
  for (double& m : new_medians)
    m /= speed;
  c.p_value = stats::mann_whitney_u(base.timing.repetition_medians, new_medians).p_value;
  std::vector<double> log_base, log_new;
  for (double m : base.timing.repetition_medians)
    log_base.push_back(std::log(m));
  for (double m : new_medians)
    log_new.push_back(std::log(m));
  const stats::ShiftInterval shift = stats::shift_interval(log_base, log_new, 1 - options.alpha);
  c.ratio_low = std::exp(shift.low);
  c.ratio_high = std::exp(shift.high);
  const bool significant = c.p_value < options.alpha;
  if (significant && c.ratio > 1.0 + threshold) {
    c.verdict = results::Verdict::slower;
  } else if (significant && c.ratio < 1.0 - threshold) {
    c.verdict = results::Verdict::faster;
  } else if (c.ratio_low >= 1.0 - threshold && c.ratio_high <= 1.0 + threshold) {
    c.verdict = results::Verdict::same;
  } else {
    // Neither a significant change past the threshold nor one bounded within it: these
    // repetitions could not have told.
    auto bound = [](double r) {
      return std::isfinite(r) && r > 0 ? fmt::format("x{:.3f}", r) : std::string("unbounded");
    };
    c.verdict = results::Verdict::unknown;
    c.reason =
        fmt::format("cannot tell: x{:.3f} (p {:.2g}), its {:.0f}% interval [{}, {}] "
                    "reaches past the {:.0f}% threshold ({} and {} repetitions; more of "
                    "them, or a quieter machine, narrow it)",
                    c.ratio, c.p_value, (1 - options.alpha) * 100, bound(c.ratio_low),
                    bound(c.ratio_high), threshold * 100, c.base_replicates, c.new_replicates);
  }
  return c;
}

} // namespace

std::vector<std::vector<double>> recorded_processes(const Json& context,
                                                    const std::vector<double>& medians) {
  std::vector<std::vector<double>> out;
  if (medians.empty())
    return out;
  if (context.value("isolate", false)) {
    for (double m : medians)
      out.push_back({m});
    return out;
  }
  const int processes = context.value("processes", 1);
  const int planned = context.value("repetitions", 0);
  if (processes <= 1 || planned != static_cast<int>(medians.size()))
    return {medians};
  auto next = medians.begin();
  for (int share : results::split_repetitions(planned, processes)) {
    out.emplace_back(next, next + share);
    next += share;
  }
  return out;
}

std::vector<std::vector<double>> recorded_processes(const Json& context,
                                                    const results::TimingInfo& timing) {
  if (!timing.repetition_medians.empty() &&
      timing.repetition_processes.size() == timing.repetition_medians.size()) {
    std::map<int, std::vector<double>> by_process;
    for (std::size_t i = 0; i < timing.repetition_medians.size(); ++i)
      by_process[timing.repetition_processes[i]].push_back(timing.repetition_medians[i]);
    std::vector<std::vector<double>> out;
    for (auto& [process, medians] : by_process)
      out.push_back(std::move(medians));
    return out;
  }
  if (timing.set_aside.empty())
    return recorded_processes(context, timing.repetition_medians);
  // Every repetition at its place (a set-aside one marked), split as the run split them.
  const std::size_t all = timing.repetition_medians.size() + timing.set_aside.size();
  std::vector<bool> aside(all, false);
  for (const auto& r : timing.set_aside) {
    if (r.repetition >= all || aside[r.repetition])
      return {timing.repetition_medians}; // places that do not fit
    aside[r.repetition] = true;
  }
  std::vector<double> placed(all, 0.0);
  auto kept = timing.repetition_medians.begin();
  for (std::size_t i = 0; i < all; ++i) {
    if (!aside[i])
      placed[i] = *kept++;
  }
  std::vector<std::vector<double>> out;
  std::size_t first = 0;
  for (const auto& process : recorded_processes(context, placed)) {
    std::vector<double> mine;
    for (std::size_t i = first; i < first + process.size(); ++i) {
      if (!aside[i])
        mine.push_back(placed[i]);
    }
    first += process.size();
    if (!mine.empty())
      out.push_back(std::move(mine));
  }
  return out;
}

Comparison compare_results(const results::ResultSet& base, const results::ResultSet& candidate,
                           const CompareOptions& options) {
  Comparison out;
  out.options = options;
  // One estimator for both sides: asked, else BASE's (its first result with a time says it).
  std::string base_estimator = "median", new_estimator = "median";
  for (const auto& r : base.cases) {
    if (r.status == results::Status::ok) {
      base_estimator = r.estimate.estimator;
      break;
    }
  }
  for (const auto& r : candidate.cases) {
    if (r.status == results::Status::ok) {
      new_estimator = r.estimate.estimator;
      break;
    }
  }
  out.estimator = options.estimator.empty() ? base_estimator : options.estimator;
  if (options.estimator.empty() && new_estimator != base_estimator) {
    out.notes.push_back("NEW was run with the " + new_estimator + " estimator and BASE with the " +
                        base_estimator + "; both times are BASE's estimator (" + base_estimator +
                        ") over the repetition medians");
  } else if (!options.estimator.empty() &&
             (base_estimator != out.estimator || new_estimator != out.estimator)) {
    out.notes.push_back("times made again with the " + out.estimator +
                        " estimator from the repetition medians (the runs used " + base_estimator +
                        " and " + new_estimator + ")");
  }
  note_setup_differences(base.context, candidate.context, out.notes);
  note_bandwidth_difference(base.summary, candidate.summary, out.notes);
  // Divided at every thread count, however close: over the 24 A/A pairs above, dividing always
  // gave a median |ratio - 1| of 1.5% on average (at most 2.1%), dividing only past 3% 1.6% (at
  // most 3.6%), not dividing 3.3% (at most 7.9%).
  const auto canaries = common_canaries(base.summary, candidate.summary);
  if (options.adjust_speed) {
    for (const auto& [threads, seconds] : canaries)
      out.speed_factors[threads] = seconds.second / seconds.first;
  }
  note_speed_difference(canaries, options, out.speed_factors, out.notes);
  // The canary times the host's CPU: a CPU case's time follows it, a GPU's execution does not.
  auto speed_of = [&out](const results::CaseResult& r) {
    if (r.c.device != "cpu")
      return 1.0;
    const auto it = out.speed_factors.find(std::to_string(r.c.threads));
    return it == out.speed_factors.end() ? 1.0 : it->second;
  };
  if (!options.thresholds.empty()) {
    std::vector<const results::Case*> all;
    for (const auto* set : {&base, &candidate}) {
      for (const auto& r : set->cases)
        all.push_back(&r.c);
    }
    results::check_threshold_rules(options.thresholds, all);
  }
  std::map<std::string, const results::CaseResult*> new_by_id;
  for (const auto& r : candidate.cases)
    new_by_id[r.c.case_id] = &r;
  std::map<std::string, bool> in_base;
  std::map<std::string, std::vector<std::string>> call_paths_changed;
  double log_sum = 0.0;
  std::size_t ratios = 0;
  for (const auto& r : base.cases) {
    in_base[r.c.case_id] = true;
    const auto it = new_by_id.find(r.c.case_id);
    if (it == new_by_id.end()) {
      out.only_in_base.push_back(r.c.case_id);
      continue;
    }
    const results::CaseResult& n = *it->second;
    if (r.status == results::Status::ok && n.status == results::Status::ok &&
        r.timing.call_path != n.timing.call_path) {
      call_paths_changed["call path " + core::name_of(r.timing.call_path) + " in BASE, " +
                         core::name_of(n.timing.call_path) + " in NEW"]
          .push_back(r.c.case_id);
    }
    const results::ThresholdRule* rule = results::threshold_rule_for(options.thresholds, r.c);
    out.cases.push_back(compare_case(r, n, base.context, candidate.context, options,
                                     rule != nullptr ? rule->threshold : options.threshold,
                                     out.estimator, speed_of(r)));
    out.cases.back().threshold_rule = rule != nullptr ? results::describe(*rule) : "";
    out.cases.back().memory = results::judge_memory(
        r.memory, n.memory, r.c.device,
        results::memory_setup_difference(base.context, r.c.seed, candidate.context, n.c.seed));
    const double ratio = out.cases.back().ratio;
    if (std::isfinite(ratio) && ratio > 0) {
      log_sum += std::log(ratio);
      ++ratios;
    }
  }
  for (const auto& r : candidate.cases) {
    if (in_base.count(r.c.case_id) == 0)
      out.only_in_new.push_back(r.c.case_id);
  }
  note_call_path_differences(call_paths_changed, out.notes);
  if (out.cases.empty()) {
    throw ResultsError("the two result files have no case in common (nothing to compare)");
  }
  out.geomean_ratio = ratios > 0 ? std::exp(log_sum / static_cast<double>(ratios)) : k_nan;
  out.agreement = agreement_of(out.cases);
  return out;
}

Agreement agreement_of(const std::vector<CaseComparison>& cases) {
  Agreement a;
  std::vector<double> changes;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const double ratio = cases[i].ratio;
    if (!std::isfinite(ratio) || ratio <= 0)
      continue;
    changes.push_back(std::abs(ratio - 1.0));
    order.push_back(i);
    if (std::abs(std::log(ratio)) > std::log(Agreement::k_far_ratio))
      ++a.past_far_ratio;
  }
  a.cases = changes.size();
  a.median_abs_change = stats::percentile(changes, 0.5);
  a.p90_abs_change = stats::percentile(changes, 0.9);
  auto distance = [&](std::size_t i) { return std::abs(std::log(cases[i].ratio)); };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return distance(x) > distance(y); });
  order.resize(std::min(order.size(), Agreement::k_worst_cases));
  a.worst = order;
  return a;
}

const std::vector<core::Format<Comparison>>& comparison_formats() {
  static const std::vector<core::Format<Comparison>> k_formats = {
      {"md", write_markdown},
      {"json", [](const Comparison& c, std::ostream& out) { out << to_json(c).dump(2) << "\n"; }},
      {"csv", write_csv},
      {"junit", write_junit}};
  return k_formats;
}

Json to_json(const Comparison& comparison) {
  auto number = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  Json out = Json::object();
  out["base"] = comparison.base_path;
  out["new"] = comparison.new_path;
  out["threshold"] = comparison.options.threshold;
  out["alpha"] = comparison.options.alpha;
  out["min_replicates"] = comparison.options.min_replicates;
  out["estimator"] = comparison.estimator;
  out["notes"] = comparison.notes;
  out["adjust_speed"] = comparison.options.adjust_speed;
  out["speed_factors"] = comparison.speed_factors;
  out["regressed"] = comparison.regressed();
  out["counts"] = {{"slower", comparison.count(results::Verdict::slower)},
                   {"faster", comparison.count(results::Verdict::faster)},
                   {"same", comparison.count(results::Verdict::same)},
                   {"unknown", comparison.count(results::Verdict::unknown)}};
  Json memory_counts = Json::object();
  for (const auto& [verdict, name] : core::NameTable<results::MemoryVerdict>::k_names)
    memory_counts[std::string(name)] = comparison.count(verdict);
  out["memory_counts"] = memory_counts;
  out["more_memory"] = comparison.more_memory();
  out["geomean_ratio"] = number(comparison.geomean_ratio);
  const Agreement& a = comparison.agreement;
  Json worst = Json::array();
  for (std::size_t i : a.worst) {
    worst.push_back(
        {{"case_id", comparison.cases[i].case_id}, {"ratio", number(comparison.cases[i].ratio)}});
  }
  out["agreement"] = {{"cases", a.cases},
                      {"median_abs_change", number(a.median_abs_change)},
                      {"p90_abs_change", number(a.p90_abs_change)},
                      {"past_far_ratio", a.past_far_ratio},
                      {"far_ratio", Agreement::k_far_ratio},
                      {"worst", worst}};
  Json cases = Json::array();
  for (const auto& c : comparison.cases) {
    cases.push_back({{"case_id", c.case_id},
                     {"verdict", core::name_of(c.verdict)},
                     {"reason", c.reason},
                     {"base_time", number(c.base_time)},
                     {"new_time", number(c.new_time)},
                     {"ratio", number(c.ratio)},
                     {"speed_factor", c.speed_factor},
                     {"p_value", number(c.p_value)},
                     {"ratio_low", number(c.ratio_low)},
                     {"ratio_high", number(c.ratio_high)},
                     {"base_replicates", c.base_replicates},
                     {"base_processes", c.base_processes},
                     {"new_processes", c.new_processes},
                     {"new_replicates", c.new_replicates},
                     {"memory", results::to_json(c.memory)},
                     {"threshold", c.threshold},
                     {"threshold_rule", c.threshold_rule}});
  }
  out["cases"] = cases;
  out["only_in_base"] = comparison.only_in_base;
  out["only_in_new"] = comparison.only_in_new;
  return out;
}

} // namespace opbench::compare
