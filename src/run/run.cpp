#include "opbench/run/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <optional>
#include <set>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/cost/roofline.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/machine/canary.hpp"
#include "opbench/machine/context.hpp"
#include "opbench/machine/device_state.hpp"
#include "opbench/machine/device_support.hpp"
#include "opbench/machine/host_allocator.hpp"
#include "opbench/measure/holding.hpp"
#include "opbench/measure/loop.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/store.hpp"
#include "opbench/run/child_runs.hpp"
#include "opbench/run/interrupt.hpp"
#include "opbench/run/processes.hpp"
#include "opbench/run/run_loop.hpp"

namespace opbench::run {
namespace {

// The run's summary, with a warning when many cases were noisy (results::noisy), naming what may
// explain it (load at start, CPU frequency governor, the threads the cases used).
Json run_summary(std::size_t cases, const results::StatusCounts& counts, std::size_t not_reached,
                 std::size_t noisy, std::size_t unstable, const Json& context) {
  const std::size_t ok = counts.ok;
  Json summary = {{"cases", cases},
                  {"ok", counts.ok},
                  {"error", counts.error},
                  {"skipped", counts.skipped},
                  {"compiler_failed", counts.compiler_failed},
                  {"timeout", counts.timeout},
                  {"noise_not_reached", not_reached},
                  {"noisy", noisy},
                  {"unstable", unstable}};
  if (ok > 0 && noisy * 4 > ok) {
    std::string why = fmt::format(
        "{} of {} cases were noisy (the repetitions each number is made from disagree by over "
        "{:.0f}%)",
        noisy, ok, results::k_noisy_uncertainty * 100);
    const Json& load = context.value("load_average", Json());
    if (load.is_array() && !load.empty()) {
      why += fmt::format("; load average at start {:.2f} on {} logical cores",
                         load[0].get<double>(), context.value("logical_cores", 0));
    }
    if (context.contains("cpu_governor") && context["cpu_governor"].is_string()) {
      why += "; CPU frequency governor " + context["cpu_governor"].get<std::string>();
    }
    why += ". For quieter numbers: an idle machine, taskset -c with one core per --threads, a "
           "longer --min-time, "
           "--repetitions with --interleave (docs/roofline.md, \"Quieter numbers\")";
    summary["warning"] = why;
  }
  return summary;
}

// Where the run's wall clock went (summary.time_spent, seconds): the cases' timed blocks, the
// rest of their kept repetitions phase by phase (results::TimeSpent), the repetitions measured
// again, the measuring processes' first, dropped repetitions (--process-warmup), and what is left
// (planning, the journal, process start-up with --processes and --isolate).
Json time_spent_summary(double wall, double timed, const results::TimeSpent& spent, double retried,
                        double process_warmup) {
  Json out = {{"wall", wall}, {"timed", timed}};
  out.update(results::to_json(spent));
  out["retried"] = retried;
  out["process_warmup"] = process_warmup;
  out["other"] = std::max(0.0, wall - timed - spent.total() - retried - process_warmup);
  return out;
}

std::string describe_time_spent(const Json& spent) {
  std::string text = fmt::format("{:.1f} s: {:.1f} s timed", spent["wall"].get<double>(),
                                 spent["timed"].get<double>());
  const std::pair<const char*, const char*> phases[] = {
      {"warmup", "warmup and calibration"},
      {"inputs", "inputs"},
      {"retaken", "interrupted blocks taken again"},
      {"recording", "recording ATen calls"},
      {"canary", "speed canary"},
      {"probes", "memory probe and traces"},
      {"retried", "repetitions measured again"},
      {"process_warmup", "process warmup"},
      {"other", "other"}};
  for (const auto& [key, words] : phases)
    text += fmt::format(", {:.1f} s {}", spent[key].get<double>(), words);
  return text;
}

// The run's context: the machine and build (machine::collect_context), and the settings that decide
// what its numbers mean.
Json run_context(const RunSettings& settings, const std::vector<results::Case>& cases,
                 const std::string& command_line, const std::string& allocator,
                 const std::string& peaks_path, bool have_peaks, int processes) {
  std::vector<std::string> devices;
  for (const auto& c : cases) {
    if (std::find(devices.begin(), devices.end(), c.device) == devices.end())
      devices.push_back(c.device);
  }
  Json context = machine::collect_context(command_line, settings.seed, allocator, devices);
  context["peaks_file"] = have_peaks ? Json(peaks_path) : Json(nullptr);
  context["repetitions"] = settings.repetitions;
  context["estimator"] = settings.estimator;
  context["interleave"] = settings.interleave;
  context["isolate"] = settings.isolate;
  // Which cases the memory canary brackets, and how far from the usual bandwidth a repetition may
  // be.
  context["memory_canary"] = {{"bytes", machine::memory_canary_bytes()},
                              {"memory_bound_bytes", machine::memory_bound_bytes()},
                              {"last_level_cache_bytes", machine::last_level_cache_bytes()},
                              {"bandwidth_tolerance", settings.bandwidth_tolerance}};
  context["processes"] = processes;
  context["measuring"] = measuring_json(settings, processes);
  if (!settings.trace_dir.empty())
    context["trace_dir"] = settings.trace_dir;
  return context;
}

// The lines the run's end tells about its readings: the memory canary's level, where the time
// went, the repetitions measured again, the noise warning.
void tell_summary(const Json& summary, const SlowSpells& slow, const RunSettings& settings,
                  const RunObserver& observer) {
  if (summary.contains("memory_bandwidth")) {
    for (const auto& [threads, level] : summary["memory_bandwidth"]["by_threads"].items()) {
      observer.note(
          fmt::format("memory canary at {} thread(s): usual {:.1f} GB/s (readings {:.1f}-{:.1f})",
                      threads, level["usual"].get<double>() / 1e9,
                      level["lowest"].get<double>() / 1e9, level["highest"].get<double>() / 1e9));
    }
    if (slow.bandwidth.set_aside() > 0) {
      observer.note(fmt::format(
          "{} repetition(s) of {} memory-bound case(s) ran at an unusual memory bandwidth "
          "(over {:.0f}% from the usual) and were set aside",
          slow.bandwidth.set_aside(), slow.bandwidth.cases_set_aside(),
          settings.bandwidth_tolerance * 100));
    }
  }
  observer.note(describe_time_spent(summary["time_spent"]));
  if (slow.measured_again > 0)
    observer.note(describe_measured_again(slow, settings.slow_tolerance));
  if (slow.device_slowed_kept > 0)
    observer.note(fmt::format("{} repetition(s) kept on a slowed GPU, the retries spent "
                              "(timing.device_slowed_repetitions)",
                              slow.device_slowed_kept));
  if (const std::size_t unstable = summary.value("unstable", std::size_t{0}); unstable > 0) {
    observer.note(fmt::format(
        "warning: {} of {} cases unstable: their repetition medians were still over {}x apart "
        "after measuring again (marked unstable; compare calls them unknown)",
        unstable, summary.value("ok", std::size_t{0}), results::k_unstable_ratio));
  }
  if (summary.contains("warning"))
    observer.note("warning: " + summary["warning"].get<std::string>());
}

// A duration for people, as rough as an estimate: "40 s", "12 min", "2.5 h".
std::string rough_duration(double seconds) {
  if (seconds < 90)
    return fmt::format("{:.0f} s", std::max(1.0, seconds));
  if (seconds < 90 * 60)
    return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

// The run's temp folder (the plan and the children's files), removed on every way out of the run.
class Scratch {
public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    if (!m_path.empty())
      core::remove_all(m_path);
  }
  void make() { m_path = core::make_temp_directory("opbench-run-"); }
  const std::string& path() const { return m_path; }

private:
  std::string m_path;
};

// The cases a measuring process started again (`resume_file`, processes.hpp's Resume) still
// measures, and per case the repetitions kept already; all of `planned` without one.
std::vector<results::Case> resumed(const std::vector<results::Case>& planned,
                                   const std::string& resume_file, int repetitions,
                                   std::vector<std::set<int>>& done) {
  if (resume_file.empty())
    return planned;
  std::string error;
  const std::optional<Json> json = core::parse_json(core::read_file(resume_file), &error);
  if (!json)
    throw ResultsError(resume_file + ": " + error);
  const Resume resume = resume_from_json(*json, resume_file);
  std::vector<results::Case> cases;
  for (const auto& c : planned) {
    if (resume.left_out.count(c.case_id) > 0)
      continue;
    const auto it = resume.done.find(c.case_id);
    std::set<int> kept = it == resume.done.end() ? std::set<int>{} : it->second;
    if (static_cast<int>(kept.size()) >= repetitions)
      continue; // every repetition of this process's share is in
    cases.push_back(c);
    done.push_back(std::move(kept));
  }
  return cases;
}

// What the earlier processes of the run found of each case (`calibration_file`,
// run_loop.hpp's Calibrations); none without one.
Calibrations handed_calibration(const std::string& calibration_file) {
  if (calibration_file.empty())
    return {};
  std::string error;
  const std::optional<Json> json = core::parse_json(core::read_file(calibration_file), &error);
  if (!json)
    throw ResultsError(calibration_file + ": " + error);
  return calibrations_from_json(*json, calibration_file);
}

} // namespace

std::string trace_file(const std::string& dir, const std::string& case_id) {
  return dir + "/" + core::file_name_of(case_id) + ".json";
}

Session::Session(RunSettings settings) : m_settings(std::move(settings)) {
  m_allocator = machine::configure_host_allocator(m_settings.host_allocator);
  check(m_settings);
}

RunOutcome Session::run(const std::vector<results::Case>& planned, const std::string& output,
                        const std::string& command_line, const RunObserver& observer) {
  RunSettings& settings = m_settings;
  // A measuring process started again after one that died: only what that one left.
  std::vector<std::set<int>> done;
  const std::vector<results::Case> cases =
      resumed(planned, settings.resume_file, settings.repetitions, done);
  const std::string peaks_path =
      settings.peaks.empty() ? cost::default_peaks_path() : settings.peaks;
  const cost::PeakStore calibrated = cost::PeakStore::load(peaks_path);
  // The run the user started supervises the processes that measure (processes.hpp): one per
  // share of the repetitions (--processes), or one per repetition (--isolate, in the loop below);
  // a measuring process (`hold_file` set) measures in itself.
  const bool measuring_child = !settings.hold_file.empty();
  const bool supervised = !measuring_child && !settings.isolate;
  const std::vector<int> shares =
      settings.isolate || measuring_child
          ? std::vector<int>{settings.repetitions}
          : results::split_repetitions(settings.repetitions, settings.processes);
  if (!settings.trace_dir.empty()) {
    core::create_directories(settings.trace_dir);
    settings.trace_dir =
        core::absolute_path(settings.trace_dir); // the report links it from anywhere
  }
  Json context = run_context(
      settings, cases, command_line, m_allocator, peaks_path, !calibrated.entries().empty(),
      settings.isolate ? settings.repetitions : static_cast<int>(shares.size()));
  // --lock-clocks: the run's first process holds the CUDA devices' clocks for the whole run (its
  // measuring processes find them locked) and gives them back to the driver at its end.
  std::vector<std::string> lock_notes;
  const machine::ClockLocks locks(settings.lock_clocks && !measuring_child, context, lock_notes);
  for (const std::string& line : lock_notes)
    observer.note(line);
  // Peaks calibrated on another CPU model or GPU would judge this machine by another's ceilings.
  std::vector<std::string> refused_peaks;
  const cost::PeakStore peaks = cost::peaks_for(calibrated, context, refused_peaks);
  if (peaks.entries().empty())
    context["peaks_file"] = nullptr;
  results::ResultWriter writer(output, context);
  observer.started(cases.size(), writer.journal_path());
  if (settings.process_label.empty()) { // a child's parent has said it
    // A stage's compile is left out of the estimate (an Inductor package: seconds from the cache,
    // a minute or more compiled): said, not guessed.
    const auto compiling = std::count_if(cases.begin(), cases.end(), [](const results::Case& c) {
      return c.stage == results::Stage::inductor || c.stage == results::Stage::inductor_dynamic;
    });
    const double most = estimated_seconds(cases.size(), settings);
    const double least = supervised ? estimated_seconds_at_least(cases.size(), settings) : most;
    observer.note(fmt::format(
        "plan: {} case(s) x {} repetition(s){}; {} (an estimate from --max-time{})", cases.size(),
        settings.repetitions,
        settings.isolate    ? ", each in a fresh process"
        : shares.size() > 1 ? fmt::format(" over {} fresh processes", shares.size())
                            : " in a fresh process",
        least < most
            ? fmt::format("at most {}, at least {} if every case is known within "
                          "+-{:.1f}% after {} process(es)",
                          rough_duration(most), rough_duration(least),
                          settings.interval_target * 100,
                          processes_before_stopping(settings, static_cast<int>(shares.size())))
            : "about " + rough_duration(most),
        compiling == 0 ? std::string()
                       : fmt::format(", not counting the Inductor compile of {} case(s): seconds "
                                     "each from the cache, a minute or more compiled",
                                     compiling)));
    observer.note(calibrated.entries().empty() ? "% of peak: none, no calibrated peaks at " +
                                                     peaks_path + " (opbench calibrate writes them)"
                  : peaks.entries().empty()
                      ? "% of peak: none, " + peaks_path + " holds no peaks of this machine"
                      : "% of peak: against the calibrated peaks of " + peaks_path);
    for (const std::string& line : refused_peaks)
      observer.note("peaks left out: " + line);
    if (settings.exec.kernel_time &&
        std::any_of(cases.begin(), cases.end(), [](const auto& c) { return c.device == "cpu"; }))
      observer.note("--kernel-time: CUDA cases only; the CPU cases have no kernel_time");
  }

  if (!writer.kept_journal().empty()) {
    observer.note("an interrupted run's journal was at " + writer.journal_path() + "; kept as " +
                  writer.kept_journal());
  }

  // With measuring children: signals are passed on to them, and end the run (interrupt.hpp).
  Scratch scratch_dir;
  std::optional<InterruptGuard> guard;
  std::string plan_file;
  if (settings.isolate || supervised) {
    guard.emplace();
    scratch_dir.make();
    plan_file = scratch_dir.path() + "/plan.json";
    write_plan(cases, plan_file);
  }
  const std::string& scratch = scratch_dir.path();

  const auto start = std::chrono::steady_clock::now();
  results::TimeSpent spent; // of the cases' kept repetitions
  double timed = 0;         // their timed blocks
  RunOutcome outcome;
  outcome.cases = cases.size();
  outcome.output = output;
  std::size_t finished = 0, noisy = 0, not_reached = 0, unstable = 0;
  results::IntervalTally intervals;
  // A case whose measurement is over: % of peak, into the results, told to the observer.
  auto finish_case = [&](results::CaseResult result) {
    spent += result.timing.spent;
    timed += result.timing.total_time;
    cost::apply_roofline(result.work, result.estimate.time,
                         peaks.find(result.c.device, result.c.dtype, result.c.threads));
    writer.append(result);
    ++finished;
    outcome.counts.add(result.status);
    if (result.status == results::Status::ok && !result.timing.noise_reached)
      ++not_reached;
    if (results::noisy(result))
      ++noisy;
    if (result.status == results::Status::ok && result.estimate.unstable)
      ++unstable;
    intervals.add(result, supervised ? settings.interval_target : 0);
    observer.case_done(result, finished, cases.size(), measure::seconds_since(start));
  };
  SlowSpells slow;
  if (supervised) {
    ProcessCallbacks on;
    on.start = [&](const ProcessTask& task, const ProcessEvents& events) {
      return run_process(plan_file, settings, task, events, scratch);
    };
    on.kept = [&](const results::CaseResult& r, int process) {
      writer.append_repetition(r, process, settings.repetitions); // kept should this run be killed
    };
    on.finish = finish_case;
    on.note = observer.note;
    on.stopped = [] { return interrupted() != 0; };
    slow = measure_in_processes(cases, shares, settings, on);
    if (interrupted() != 0)
      throw Interrupted(interrupted(), writer.journal_path());
  } else {
    if (measuring_child)
      measure::open_hold_file(settings.hold_file);
    int serial = 0;
    LoopCallbacks on;
    on.options_for = [&settings](const results::Case& c, const Job& job) {
      measure::ExecOptions exec_options = settings.exec;
      exec_options.memory = settings.exec.memory && job.repetition == 0;
      // Profiled once a case: in the run's first process (placement 0), its first repetition.
      exec_options.kernel_time =
          settings.exec.kernel_time && job.repetition == 0 && settings.placement == 0;
      // The ATen calls and their work are the same in every process: the first records them
      // (a child of --processes or --isolate after the first starts past placement 0).
      exec_options.describe = job.repetition == 0 && settings.placement == 0;
      exec_options.repetition = settings.placement + job.repetition;
      exec_options.estimator = settings.estimator;
      if (!settings.trace_dir.empty() && job.repetition == 0)
        exec_options.trace_path = trace_file(settings.trace_dir, c.case_id);
      return exec_options;
    };
    on.measure = [&](const results::Case& c, const measure::ExecOptions& exec_options) {
      if (!settings.isolate) {
        // Said before the case is touched: should it kill this process, its supervisor knows.
        measure::hold(c.case_id, exec_options.repetition,
                      exec_options.dropped ? measure::Phase::process_warmup
                                           : measure::Phase::inputs);
        results::CaseResult result = exec::run_case(c, exec_options);
        measure::release_hold();
        return result;
      }
      results::CaseResult result = run_isolated(c, plan_file, settings, exec_options.memory,
                                                !exec_options.trace_path.empty(),
                                                exec_options.repetition, scratch, serial++);
      if (interrupted() != 0) // the repetition's process was stopped: nothing of it is kept
        throw Interrupted(interrupted(), writer.journal_path());
      // Each repetition a process of its own: the interval's groups (results::interval_of).
      if (result.status == results::Status::ok && result.timing.repetition_medians.size() == 1)
        result.timing.repetition_processes = {exec_options.repetition};
      return result;
    };
    on.kept = [&](const results::CaseResult& r, int repetition) {
      writer.append_repetition(r, repetition, settings.repetitions);
    };
    on.finish = finish_case;
    LoopOptions loop = loop_options(settings);
    loop.done = std::move(done);
    loop.calibration = handed_calibration(settings.calibration_file);
    slow = run_loop(cases, loop, on);
  }
  std::vector<std::string> order;
  for (const auto& c : cases)
    order.push_back(c.case_id);
  Json summary = run_summary(cases.size(), outcome.counts, not_reached, noisy, unstable, context);
  summary["slow_spells"] = slow_spells_json(slow, settings.slow_tolerance);
  if (!slow.bandwidth.empty())
    summary["memory_bandwidth"] = slow.bandwidth.summary(settings.bandwidth_tolerance);
  summary["time_spent"] = time_spent_summary(measure::seconds_since(start), timed, spent,
                                             slow.time_retried, slow.time_process_warmup);
  summary["interval"] = intervals.to_json(supervised ? settings.interval_target : 0);
  if (settings.process_label.empty())
    observer.note(intervals.describe(supervised ? settings.interval_target : 0));
  tell_summary(summary, slow, settings, observer);
  writer.finish(order, summary);
  outcome.summary = std::move(summary);
  return outcome;
}

} // namespace opbench::run
