#include "opbench/run/processes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "opbench/core/error.hpp"
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
    slow.device_measured_again += spells.value("device_measured_again", std::size_t{0});
    slow.device_slowed_kept += spells.value("device_slowed_kept", std::size_t{0});
    const Json highest = spells.value("highest_sm_clock_mhz", Json::object());
    for (const auto& [device, mhz] : highest.items()) {
      if (mhz.is_number())
        slow.highest_sm_clock[device] = std::max(slow.highest_sm_clock[device], mhz.get<double>());
    }
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

// A process that ended while it held a case, as that case's record keeps it.
struct Failure {
  int process = 0; // 0-based
  std::string text;
  bool timed_out = false;
};

// Everything the run's processes said of one case.
struct CaseParts {
  std::vector<std::pair<int, results::CaseResult>> parts; // (process, part)
  std::vector<Failure> failures;
  bool finished = false; // handed to `finish`
};

// Says that process `k` measured `r`'s repetition medians (one without medians stands for its
// samples' median, as combine_repetitions takes it); a failed or skipped part has none.
void tag_process(results::CaseResult& r, int k) {
  const std::size_t medians = r.timing.repetition_medians.size();
  r.timing.repetition_processes.assign(
      r.status != results::Status::ok ? 0 : std::max<std::size_t>(1, medians), k);
  if (medians == 0 && r.status == results::Status::ok)
    r.timing.repetition_medians.push_back(r.summary.median);
}

std::string process_name(int k, int of) {
  return fmt::format("process {} of {}", k + 1, of);
}

} // namespace

Json to_json(const Resume& resume) {
  Json done = Json::object();
  for (const auto& [id, repetitions] : resume.done)
    done[id] = repetitions;
  return {{"done", done}, {"left_out", resume.left_out}};
}

Resume resume_from_json(const Json& json, const std::string& where) {
  Resume resume;
  try {
    for (const auto& [id, repetitions] : json.at("done").items()) {
      for (const Json& r : repetitions) {
        const auto index = core::exact_int64(r);
        if (!index || *index < 0 || *index > 1'000'000)
          throw ResultsError(where + ": a repetition index of '" + id + "' is out of range");
        resume.done[id].insert(static_cast<int>(*index));
      }
    }
    for (const Json& id : json.at("left_out"))
      resume.left_out.insert(id.get<std::string>());
  } catch (const Json::exception& e) {
    throw ResultsError(where + ": not a resume record (" + std::string(e.what()) + ")");
  }
  return resume;
}

std::string describe_failure(const ProcessEnd& end, int of) {
  if (!end.held)
    return end.how;
  const measure::Held& held = *end.held;
  const std::string where = fmt::format("{}, repetition {} of {}", measure::describe(held.phase),
                                        held.repetition + 1, of);
  if (end.timed_out) {
    return fmt::format("held {}, past the {:.0f} s limit (--case-timeout); killed", where,
                       end.limit);
  }
  return end.how + " in " + where;
}

SlowSpells measure_in_processes(const std::vector<results::Case>& cases,
                                const std::vector<int>& shares, const RunSettings& settings,
                                const ProcessCallbacks& on) {
  std::map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < cases.size(); ++i)
    index_of.emplace(cases[i].case_id, i);
  std::vector<CaseParts> all(cases.size());
  std::vector<std::string> problems;
  SlowSpells slow;
  Calibrations learned; // what the processes so far found of each case, handed to the next
  const int of = static_cast<int>(shares.size());
  // Stop when known: after this many processes a case whose interval is within the target is done
  // and the later processes leave it out (`closed`).
  const int before_stopping = processes_before_stopping(settings, of);
  std::set<std::string> closed;
  std::vector<int> asked(cases.size(), 0); // repetitions each case's processes were asked for
  // The least half-width a case's interval gets (results::run_allowance), from every case's
  // spread once two processes have measured them, before each later process.
  double allowance = results::k_run_allowance;
  // Each case's own spread width, as last seen (a case done early keeps its own).
  std::vector<double> widths(cases.size(), std::numeric_limits<double>::quiet_NaN());
  // The interval `result` gets in this run.
  auto with_allowance = [&allowance](results::CaseResult& result) {
    if (result.status == results::Status::ok) {
      result.estimate.interval =
          results::interval_of(result.estimate.time, result.timing.repetition_medians,
                               result.timing.repetition_processes, allowance);
    }
  };

  // Case `i` is over: its parts merged, or its failure.
  auto finish_case = [&](std::size_t i) {
    CaseParts& mine = all[i];
    mine.finished = true;
    results::CaseResult result;
    std::vector<results::CaseResult> measured;
    std::set<int> ran_in;
    for (const auto& [k, part] : mine.parts)
      ran_in.insert(k);
    for (const Failure& f : mine.failures)
      ran_in.insert(f.process);
    const auto bad = std::find_if(mine.parts.begin(), mine.parts.end(), [](const auto& p) {
      return p.second.status != results::Status::ok;
    });
    if (!mine.failures.empty()) {
      // Kept: what the other processes measured (the record's timing), never a verdict on it.
      for (auto& p : mine.parts) {
        if (p.second.status == results::Status::ok)
          measured.push_back(std::move(p.second));
      }
      if (!measured.empty()) {
        result = results::combine_repetitions(measured, settings.estimator);
        slow.bandwidth.apply(result, settings.bandwidth_tolerance);
      }
      const bool all_timeouts = std::all_of(mine.failures.begin(), mine.failures.end(),
                                            [](const Failure& f) { return f.timed_out; });
      result.status = all_timeouts ? results::Status::timeout : results::Status::error;
      const Failure& first = mine.failures.front();
      std::string message = first.text + " (" + process_name(first.process, of) + ")";
      if (mine.failures.size() > 1 || ran_in.size() > 1) {
        message += fmt::format("; it failed in {} of the {} process(es) that ran it",
                               mine.failures.size(), ran_in.size());
      }
      if (!measured.empty()) {
        message += fmt::format("; {} repetition(s) measured elsewhere are kept, not judged",
                               result.timing.repetition_medians.size());
      }
      result.message = message;
    } else if (mine.parts.empty()) {
      result.status = results::Status::error;
      result.message = "no process measured it: " + core::join(problems, "; ");
    } else if (bad != mine.parts.end()) {
      // A case that failed or was skipped in one process says why, as a run of one process would.
      result = bad->second;
      if (result.status == results::Status::error)
        result.message = fmt::format("{}: {}", process_name(bad->first, of), result.message);
    } else {
      for (auto& p : mine.parts)
        measured.push_back(std::move(p.second));
      result = results::combine_repetitions(measured, settings.estimator);
      result.c = cases[i];
      slow.bandwidth.apply(result, settings.bandwidth_tolerance);
      const std::size_t got =
          result.timing.repetition_medians.size() + result.timing.set_aside.size();
      if (got < static_cast<std::size_t>(asked[i])) {
        result.message =
            fmt::format("{} of {} repetitions: {}", got, asked[i], core::join(problems, "; "));
      }
    }
    result.c = cases[i];
    with_allowance(result);
    on.finish(std::move(result));
  };

  // Case `i` as its result would be now, if all its parts are ok and none failed.
  auto so_far = [&](std::size_t i) -> std::optional<results::CaseResult> {
    const CaseParts& mine = all[i];
    if (mine.finished || !mine.failures.empty() || mine.parts.empty())
      return std::nullopt;
    std::vector<results::CaseResult> measured;
    for (const auto& [k, part] : mine.parts) {
      if (part.status != results::Status::ok)
        return std::nullopt;
      measured.push_back(part);
    }
    results::CaseResult result = results::combine_repetitions(measured, settings.estimator);
    // As finish_case will set them aside, uncounted (finish_case counts them).
    const double tolerance = settings.bandwidth_tolerance;
    if (tolerance > 0 && !result.timing.repetition_bandwidth.empty()) {
      results::set_aside_unusual_bandwidth(
          result, slow.bandwidth.usual(result.c.threads, tolerance), tolerance);
    }
    return result;
  };

  int placement = settings.placement;
  for (int k = 0; k < of; ++k) {
    std::vector<std::optional<results::CaseResult>> now(cases.size());
    if (k >= 2) {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        now[i] = so_far(i);
        if (now[i])
          widths[i] = results::spread_width(now[i]->timing.repetition_medians,
                                            now[i]->timing.repetition_processes);
      }
      allowance = results::run_allowance(widths);
    }
    if (k >= before_stopping) {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        if (!now[i])
          continue;
        with_allowance(*now[i]);
        if (now[i]->estimate.interval.half_width <= settings.interval_target) {
          closed.insert(cases[i].case_id);
          finish_case(i);
        }
      }
    }
    const std::size_t open = cases.size() - closed.size();
    if (open == 0) {
      on.note(fmt::format("every case known within +-{:.1f}% after {} process(es); {} more not "
                          "started",
                          settings.interval_target * 100, k, of - k));
      break;
    }
    for (std::size_t i = 0; i < cases.size(); ++i) {
      if (closed.count(cases[i].case_id) == 0)
        asked[i] += shares[k];
    }
    on.note(closed.empty()
                ? fmt::format("{}: {} repetition(s) of each case", process_name(k, of), shares[k])
                : fmt::format("{}: {} repetition(s) of the {} case(s) not yet known within "
                              "+-{:.1f}% ({} are)",
                              process_name(k, of), shares[k], open, settings.interval_target * 100,
                              closed.size()));
    ProcessTask task;
    task.index = k;
    task.of = of;
    task.repetitions = shares[k];
    task.first_placement = placement;
    task.memory = settings.exec.memory && k == 0;
    task.trace = !settings.trace_dir.empty() && k == 0;
    placement += shares[k];
    const bool last = k + 1 == of;
    // A process that made no progress before dying holding no case is not started again (it would
    // die the same way); one that held a case leaves that case out, so the next one gets further.
    Resume resume; // what the next process of this share starts from, should this one die
    resume.left_out = closed;
    for (task.attempt = 0;; ++task.attempt) {
      task.resume = resume;
      task.calibration = learned;
      // This attempt's kept repetitions of cases it has not finished (repetition, part).
      std::map<std::size_t, std::vector<std::pair<int, results::CaseResult>>> pending;
      bool progress = false;
      ProcessEvents events;
      events.repetition = [&](results::CaseResult r, int repetition) {
        const auto it = index_of.find(r.c.case_id);
        if (it == index_of.end())
          return;
        progress = true;
        tag_process(r, k);
        on.kept(r, k);
        learn_calibration(learned, r);
        pending[it->second].emplace_back(repetition, std::move(r));
      };
      events.finished = [&](results::CaseResult r) {
        const auto it = index_of.find(r.c.case_id);
        if (it == index_of.end() || all[it->second].finished)
          return;
        progress = true;
        tag_process(r, k);
        // Its repetitions went to `kept` as they came; a part told only whole is kept whole.
        if (pending.erase(it->second) == 0)
          on.kept(r, k);
        learn_calibration(learned, r);
        // A process started again after this one died measures it no more.
        for (int repetition = 0; repetition < task.repetitions; ++repetition)
          resume.done[r.c.case_id].insert(repetition);
        slow.bandwidth.add(r);
        all[it->second].parts.emplace_back(k, std::move(r));
        if (last)
          finish_case(it->second);
      };
      const ProcessEnd end = on.start(task, events);
      add_process_summary(end.summary, slow);
      // What a process that died kept of the cases it had not finished is theirs all the same.
      for (auto& [i, repetitions] : pending) {
        for (auto& [repetition, r] : repetitions) {
          resume.done[cases[i].case_id].insert(repetition);
          slow.bandwidth.add(r);
          all[i].parts.emplace_back(k, std::move(r));
        }
      }
      if (!end.problem.empty()) {
        on.note(end.problem);
        problems.push_back(end.problem);
      }
      if (end.finished)
        break;
      // A signal that stopped the run also ended the process: no case is to blame for it.
      if (on.stopped && on.stopped())
        return slow;
      const auto held = end.held ? index_of.find(end.held->case_id) : index_of.end();
      if (held != index_of.end() && resume.left_out.count(end.held->case_id) == 0) {
        const std::string text = describe_failure(end, settings.repetitions);
        all[held->second].failures.push_back({k, text, end.timed_out});
        resume.left_out.insert(end.held->case_id);
        on.note(fmt::format("{}: {}: {}; a fresh process goes on with the other cases",
                            process_name(k, of), end.held->case_id, text));
      } else {
        const std::string problem =
            fmt::format("{} ended without finishing ({})", process_name(k, of), end.how);
        on.note(problem);
        problems.push_back(problem);
        if (!progress)
          break;
      }
      const bool any_left = std::any_of(cases.begin(), cases.end(), [&](const results::Case& c) {
        const auto done = resume.done.find(c.case_id);
        return resume.left_out.count(c.case_id) == 0 &&
               (done == resume.done.end() ||
                static_cast<int>(done->second.size()) < task.repetitions);
      });
      if (!any_left)
        break;
    }
    if (on.stopped && on.stopped())
      return slow;
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!all[i].finished)
      finish_case(i);
  }
  return slow;
}

} // namespace opbench::run
