#include "opbench/run/processes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "opbench/core/strings.hpp"
#include "opbench/results/estimate.hpp"

namespace opbench::run {
namespace {

// Adds what a process's summary says it met to the run's.
void add_process_summary(const Json& summary, SlowSpells& slow) {
  if (summary.contains("slow_spells")) {
    const Json& spells = summary["slow_spells"];
    slow.measured_again += spells.value("repetitions_measured_again", std::size_t{0});
    slow.unstable_measured_again += spells.value("unstable_measured_again", std::size_t{0});
    slow.repetitions += spells.value("repetitions", std::size_t{0});
    const Json fastest = spells.value("fastest_canary_by_threads", Json::object());
    for (const auto& [threads, seconds] : fastest.items()) {
      const auto [it, first] =
          slow.fastest_canary.emplace(std::stoi(threads), seconds.get<double>());
      if (!first)
        it->second = std::min(it->second, seconds.get<double>());
    }
  }
  if (summary.contains("memory_bandwidth") && summary["memory_bandwidth"].is_object()) {
    slow.bandwidth.measured_again +=
        summary["memory_bandwidth"].value("repetitions_measured_again", std::size_t{0});
  }
  if (summary.contains("time_spent")) {
    slow.time_retried += summary["time_spent"].value("retried", 0.0);
    slow.time_process_warmup += summary["time_spent"].value("process_warmup", 0.0);
  }
}

} // namespace

SlowSpells measure_in_processes(const std::vector<results::Case>& cases,
                                const std::vector<int>& shares, const RunSettings& settings,
                                const ProcessCallbacks& on) {
  std::map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < cases.size(); ++i)
    index_of.emplace(cases[i].case_id, i);
  std::vector<std::vector<std::pair<int, results::CaseResult>>> parts(cases.size());
  std::vector<std::string> problems;
  SlowSpells slow;
  const int of = static_cast<int>(shares.size());
  int placement = settings.placement;
  for (int k = 0; k < of; ++k) {
    on.note(fmt::format("process {} of {}: {} repetition(s) of each case", k + 1, of, shares[k]));
    ProcessTask task;
    task.index = k;
    task.of = of;
    task.repetitions = shares[k];
    task.first_placement = placement;
    task.memory = settings.exec.memory && k == 0;
    task.trace = !settings.trace_dir.empty() && k == 0;
    ProcessPart part = on.start(task);
    placement += shares[k];
    for (auto& r : part.results.cases) {
      const auto it = index_of.find(r.c.case_id);
      if (it == index_of.end())
        continue;
      on.kept(r, k);
      slow.bandwidth.add(r);
      parts[it->second].emplace_back(k, std::move(r));
    }
    add_process_summary(part.results.summary, slow);
    if (!part.problem.empty()) {
      on.note(part.problem);
      problems.push_back(part.problem);
    }
    if (on.stopped && on.stopped())
      return slow;
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto& mine = parts[i];
    results::CaseResult result;
    const auto bad = std::find_if(mine.begin(), mine.end(), [](const auto& p) {
      return p.second.status != results::Status::ok;
    });
    if (mine.empty()) {
      result.status = results::Status::error;
      result.message = "no process measured it: " + core::join(problems, "; ");
    } else if (bad != mine.end()) {
      // A case that failed or was skipped in one process says why, as a run of one process would.
      result = bad->second;
      if (result.status == results::Status::error)
        result.message = fmt::format("process {} of {}: {}", bad->first + 1, of, result.message);
    } else {
      std::vector<results::CaseResult> measured;
      for (auto& p : mine)
        measured.push_back(std::move(p.second));
      result = results::combine_repetitions(measured, settings.estimator);
      result.c = cases[i];
      slow.bandwidth.apply(result, settings.bandwidth_tolerance);
      const std::size_t got =
          result.timing.repetition_medians.size() + result.timing.set_aside.size();
      if (got < static_cast<std::size_t>(settings.repetitions)) {
        result.message = fmt::format("{} of {} repetitions: {}", got, settings.repetitions,
                                     core::join(problems, "; "));
      }
    }
    result.c = cases[i];
    on.finish(std::move(result));
  }
  return slow;
}

} // namespace opbench::run
