#include "opbench/gate/nightly.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "opbench/ab/ab.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/history/history.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/merge.hpp"
#include "opbench/results/store.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::gate {
namespace {

// How tonight's device differed from the nights' of `series` for CUDA case `r` (GateInput::
// device_moved): repetitions kept on a slowed device, or its lowest SM clock off the nights' usual
// (their median) by more than `tolerance`; "" when neither, or no clock was read.
std::string device_moved(const results::CaseResult& r, const std::vector<history::Point>& series,
                         double tolerance) {
  if (r.timing.device_slowed_repetitions > 0) {
    return fmt::format("{} repetition(s) kept on a slowed device tonight",
                       r.timing.device_slowed_repetitions);
  }
  const auto tonight = results::lowest_sm_clock(r.timing.repetition_device_state);
  std::vector<double> clocks;
  for (const auto& p : series) {
    if (p.sm_clock_mhz)
      clocks.push_back(*p.sm_clock_mhz);
  }
  if (!tonight || clocks.empty())
    return "";
  const double usual = stats::median(clocks);
  if (std::abs(*tonight / usual - 1) <= tolerance)
    return "";
  return fmt::format("its SM clock read {:.0f} MHz tonight, {:+.0f}% from its nights' usual "
                     "{:.0f} MHz",
                     *tonight, (*tonight / usual - 1) * 100, usual);
}

// Tonight's memory against the newest night that probed the case on tonight's LibTorch and seed
// (memory is exact: one night is the reference, no window); with no such night, unknown, saying
// why by the newest night that probed it. `series`: every night of the case before tonight.
results::MemoryChange memory_against_history(const results::CaseResult& r, const Json& context,
                                             const std::vector<history::Point>& series) {
  if (!r.memory) {
    results::MemoryChange none;
    none.reason = "no memory probe tonight";
    return none;
  }
  auto difference = [&](const history::Point& p) {
    return results::memory_setup_difference(p.setup, p.seed.value_or(r.c.seed), context, r.c.seed);
  };
  const history::Point* newest = nullptr;
  for (auto it = series.rbegin(); it != series.rend(); ++it) {
    if (!it->memory)
      continue;
    if (newest == nullptr)
      newest = &*it;
    if (difference(*it).empty())
      return results::judge_memory(it->memory, r.memory, r.c.device, "");
  }
  if (newest == nullptr) {
    results::MemoryChange none = results::judge_memory(std::nullopt, r.memory, r.c.device, "");
    none.reason = "no night of the history probed its memory";
    return none;
  }
  return results::judge_memory(newest->memory, r.memory, r.c.device, difference(*newest));
}

// The newest `limit` points of `series` (oldest first) that `keep` accepts; limit 0: all.
template <typename Keep>
std::vector<history::Point> newest(const std::vector<history::Point>& series, std::size_t limit,
                                   Keep keep) {
  std::vector<history::Point> out;
  for (auto it = series.rbegin(); it != series.rend() && (limit == 0 || out.size() < limit); ++it) {
    if (keep(*it))
      out.push_back(*it);
  }
  return {out.rbegin(), out.rend()};
}

} // namespace

GateResult judge_night(const Night& night, const GateOptions& options) {
  const std::string& tonight_path = night.tonight;
  const results::ResultSet tonight = results::load_results(tonight_path);
  const history::History db(night.history, history::Access::read);
  const std::int64_t self = db.find(tonight);
  const std::string date = tonight.context.value("date", std::string());
  if (!night.thresholds.empty()) {
    std::vector<const results::Case*> cases;
    for (const auto& r : tonight.cases)
      cases.push_back(&r.c);
    results::check_threshold_rules(night.thresholds, cases);
  }
  // The host allocator the measuring processes ran on (machine::configure_host_allocator): glibc
  // against jemalloc moves a small case's time by up to 10% with no change in the code under
  // test, so a night measured on another one is no baseline, as a night that called the case
  // another way is not. A night or a tonight that does not record it counts for every one.
  const std::string allocator = core::text_field(tonight.context, "host_allocator");
  std::set<std::string> other_allocators; // those of the nights left out for it (the note)
  auto same_allocator = [&](const history::Point& p) {
    const std::string theirs = core::text_field(p.setup, "host_allocator");
    return allocator.empty() || theirs.empty() || theirs == allocator;
  };
  std::vector<GateInput> inputs;
  for (const auto& r : tonight.cases) {
    GateInput in;
    in.case_id = r.c.case_id;
    if (const auto* rule = results::threshold_rule_for(night.thresholds, r.c)) {
      in.effect_floor = rule->threshold;
      in.floor_rule = results::describe(*rule);
    }
    // Every night judged with tonight's estimator, made again from its repetition medians where the
    // history kept them: a history recorded with another estimator (min, the default before
    // 2026-11-25) would otherwise shift against tonight by the estimators' difference.
    // Only nights that timed the same thing (GPU time, batch time, host time) with the case called
    // the same way: a call path that changed (typed <-> boxed) steps the time by what the boxed
    // call costs, which is opbench's, not the code's under test.
    // One query per case: every night before tonight, then the window chosen from it.
    const auto earlier = db.series(r.c.case_id, 0, self, date);
    const std::string measures = core::name_of(r.timing.measures);
    const std::string call_path = core::name_of(r.timing.call_path);
    auto called_alike = [&](const history::Point& p) {
      return p.call_path.empty() || p.call_path == call_path;
    };
    auto alike = [&](const history::Point& p) {
      return p.measures == measures && called_alike(p) && same_allocator(p);
    };
    // The nights left out for their allocator alone, named in the report's note.
    for (const auto& p : earlier) {
      if (p.measures == measures && called_alike(p) && !same_allocator(p))
        other_allocators.insert(core::text_field(p.setup, "host_allocator"));
    }
    // Nights held out (history::Exclusion) are no baseline: a night the gate judged slower stays
    // out until its change is accepted, so a fixed regression leaves the window as it was.
    const auto series = newest(earlier, options.window, [&](const history::Point& p) {
      return alike(p) && p.excluded.empty();
    });
    for (const auto& p : earlier) {
      if (alike(p) && !p.excluded.empty() && (series.empty() || p.date >= series.front().date))
        ++in.held_out;
    }
    // An accepted step (history accept) moves the nights before it onto the new level.
    for (const auto& p :
         history::on_accepted_level(history::restated(series, r.estimate.estimator))) {
      in.history.push_back(p.time);
      if (!p.accepted.empty())
        in.accepted = p.date + ": " + p.accepted;
    }
    if (series.size() < options.min_history) {
      std::map<std::string, std::size_t> others;
      std::size_t other_allocator = 0;
      const auto timed_alike = newest(
          earlier, options.window, [&](const history::Point& p) { return p.measures == measures; });
      for (const auto& p : timed_alike) {
        if (!called_alike(p))
          ++others[p.call_path];
        else if (!same_allocator(p))
          ++other_allocator;
      }
      for (const auto& [path, nights] : others) {
        in.left_out +=
            fmt::format("{}{} night(s) called {}", in.left_out.empty() ? "" : ", ", nights, path);
      }
      if (!in.left_out.empty())
        in.left_out = "called " + call_path + " tonight; left out: " + in.left_out;
      if (other_allocator > 0) {
        in.left_out += fmt::format("{}left out: {} night(s) measured on another host allocator",
                                   in.left_out.empty() ? "" : "; ", other_allocator);
      }
    }
    in.memory = memory_against_history(r, tonight.context, earlier);
    in.device_moved = device_moved(r, series, options.clock_tolerance);
    if (r.status == results::Status::ok)
      in.tonight = r.estimate.time;
    else if (r.status != results::Status::skipped)
      in.failed = core::name_of(r.status) + ": " + core::first_line(r.message);
    in.unstable = r.estimate.unstable;
    inputs.push_back(std::move(in));
  }
  GateResult result = judge(inputs, options);
  if (!other_allocators.empty()) {
    result.notes.push_back(fmt::format(
        "nights of the history measured on another host allocator ({}) are no baseline: tonight "
        "measured on {} (`run --host-allocator` chooses; docs/measuring.md)",
        core::join(std::vector<std::string>(other_allocators.begin(), other_allocators.end()),
                   "; "),
        allocator));
  }
  if (!night.second_look.empty()) {
    // The same measurement again: its value is only comparable when it was made the same way.
    const results::ResultSet again = results::load_results(night.second_look);
    const auto differences = results::measuring_differences(again.context, tonight.context);
    if (!differences.empty()) {
      throw UsageError(fmt::format("--second-look {}: measured differently from tonight's {} ({}, "
                                   "the second look's first); the second look must be measured "
                                   "with tonight's settings",
                                   night.second_look, tonight_path, core::join(differences, "; ")));
    }
    std::vector<std::string> ids;
    std::vector<double> values;
    for (const auto& r : again.cases) {
      if (r.status != results::Status::ok)
        continue;
      ids.push_back(r.c.case_id);
      values.push_back(r.estimate.time);
    }
    second_look(result, ids, values);
  }
  if (!night.confirm_ab.empty() && !night.confirm.empty())
    throw UsageError("one confirmation: --confirm (tonight's build again) or --confirm-ab (A/B)");
  if (!night.confirm_ab.empty()) {
    ab::AbResult measured = ab::load_ab(night.confirm_ab);
    std::vector<ab::PairedCase> paired;
    for (auto& c : measured.cases)
      paired.push_back(std::move(c.paired));
    confirm_ab(result, paired);
  }
  if (!night.confirm.empty()) {
    // The confirmation's values of a case over all its files: tonight's estimator over all its
    // repetition medians (`run --isolate`: each repetition was a process of its own).
    const std::string estimator = tonight.context.value("estimator", std::string("median"));
    std::map<std::string, std::vector<double>> medians;
    for (const auto& file : night.confirm) {
      for (const auto& r : results::load_results(file).cases) {
        if (r.status != results::Status::ok || r.timing.repetition_medians.empty())
          continue;
        auto& m = medians[r.c.case_id];
        m.insert(m.end(), r.timing.repetition_medians.begin(), r.timing.repetition_medians.end());
      }
    }
    std::vector<std::string> ids;
    std::vector<double> values;
    for (const auto& [id, m] : medians) {
      ids.push_back(id);
      values.push_back(results::estimate_with(estimator, m));
    }
    confirm(result, ids, values);
  }
  hold_device_moves(result);
  return result;
}

} // namespace opbench::gate
