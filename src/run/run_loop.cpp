#include "opbench/run/run_loop.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "opbench/core/error.hpp"
#include "opbench/core/log.hpp"
#include "opbench/measure/loop.hpp"
#include "opbench/results/estimate.hpp"

namespace opbench::run {

LoopOptions loop_options(const RunSettings& settings) {
  LoopOptions loop;
  loop.repetitions = settings.repetitions;
  loop.interleave = settings.interleave;
  loop.order_seed =
      settings.seed + static_cast<std::uint64_t>(settings.placement) * 0x9E3779B97F4A7C15ull;
  loop.retries = settings.retries;
  loop.slow_tolerance = settings.slow_tolerance;
  loop.bandwidth_tolerance = settings.bandwidth_tolerance;
  loop.process_warmup = settings.isolate ? 0.0 : settings.process_warmup;
  loop.set_aside_here = settings.process_label.empty();
  loop.estimator = settings.estimator;
  loop.first_placement = settings.placement;
  loop.run_repetitions =
      settings.run_repetitions > 0 ? settings.run_repetitions : settings.repetitions;
  return loop;
}

void learn_calibration(Calibrations& into, const results::CaseResult& repetition) {
  const results::TimingInfo& timing = repetition.timing;
  if (repetition.status != results::Status::ok || timing.block_size <= 0 ||
      timing.repetition_medians.empty())
    return;
  const double fastest =
      *std::min_element(timing.repetition_medians.begin(), timing.repetition_medians.end());
  if (!(fastest > 0))
    return;
  measure::Calibration& known = into[repetition.c.case_id];
  known.block_size = timing.block_size;
  if (!(known.seconds_per_call > 0) || fastest < known.seconds_per_call)
    known.seconds_per_call = fastest;
}

Json to_json(const Calibrations& calibration) {
  Json json = Json::object();
  for (const auto& [id, known] : calibration)
    json[id] = {{"block_size", known.block_size}, {"seconds_per_call", known.seconds_per_call}};
  return json;
}

Calibrations calibrations_from_json(const Json& json, const std::string& where) {
  Calibrations calibration;
  if (!json.is_object())
    throw ResultsError(where + ": not a calibration record (expected an object of case ids)");
  for (const auto& [id, known] : json.items()) {
    const Json* block =
        known.is_object() && known.contains("block_size") ? &known["block_size"] : nullptr;
    const Json* seconds = known.is_object() && known.contains("seconds_per_call")
                              ? &known["seconds_per_call"]
                              : nullptr;
    if (block == nullptr || !block->is_number_integer() || block->get<std::int64_t>() < 1 ||
        seconds == nullptr || !seconds->is_number() || !(seconds->get<double>() > 0))
      throw ResultsError(where + ": case '" + id +
                         "': expected {\"block_size\": a whole number of 1 or more, "
                         "\"seconds_per_call\": a number over 0}");
    calibration[id] = {block->get<std::int64_t>(), seconds->get<double>()};
  }
  return calibration;
}

Json slow_spells_json(const SlowSpells& slow, double tolerance) {
  Json fastest = Json::object();
  for (const auto& [threads, seconds] : slow.fastest_canary)
    fastest[std::to_string(threads)] = seconds;
  Json out = {{"repetitions_measured_again", slow.measured_again},
              {"unstable_measured_again", slow.unstable_measured_again},
              {"repetitions", slow.repetitions},
              {"tolerance", tolerance},
              {"fastest_canary_by_threads", fastest}};
  if (!slow.highest_sm_clock.empty()) { // CUDA devices whose state NVML gave
    out["device_measured_again"] = slow.device_measured_again;
    out["device_slowed_kept"] = slow.device_slowed_kept;
    out["highest_sm_clock_mhz"] = slow.highest_sm_clock;
  }
  return out;
}

std::string describe_measured_again(const SlowSpells& slow, double tolerance) {
  const std::size_t for_bandwidth = slow.bandwidth.measured_again;
  const std::size_t for_unstable = slow.unstable_measured_again;
  const std::size_t for_device = slow.device_measured_again;
  return fmt::format(
      "{} of {} repetitions were measured again: {} ran while the machine was over "
      "{:.0f}% slow (speed canary){}{}{}",
      slow.measured_again, slow.repetitions,
      slow.measured_again - for_bandwidth - for_unstable - for_device, tolerance * 100,
      for_bandwidth == 0
          ? ""
          : fmt::format(", {} at a memory bandwidth off the usual one (memory canary)",
                        for_bandwidth),
      for_unstable == 0 ? ""
                        : fmt::format(", {} disagreed over {}x with their case's others",
                                      for_unstable, results::k_unstable_ratio),
      for_device == 0 ? ""
                      : fmt::format(", {} ran on a slowed GPU (a throttle reason, or its SM "
                                    "clock over {:.0f}% under its case's highest)",
                                    for_device, tolerance * 100));
}

SlowSpells run_loop(const std::vector<results::Case>& cases, const LoopOptions& options,
                    const LoopCallbacks& on) {
  SlowSpells slow;
  std::map<std::size_t, std::vector<results::CaseResult>> pending;
  std::map<std::size_t, std::vector<Job>> pending_jobs; // the job of each pending repetition
  std::map<std::size_t, std::int64_t> retried;
  Schedule schedule(cases.size(), options.repetitions, options.interleave, options.order_seed,
                    options.retries);
  // The repetitions each case still needs here (fewer when a process that died kept some).
  std::vector<int> needed(cases.size(), options.repetitions);
  for (std::size_t i = 0; i < options.done.size() && i < cases.size(); ++i) {
    for (int r : options.done[i]) {
      schedule.drop_job(i, r);
      --needed[i];
    }
  }
  SpeedGate gate(options.slow_tolerance);
  DeviceClockGate device_gate(options.slow_tolerance);
  Calibrations calibration = options.calibration;
  // A fresh process's first repetition runs 15-20% slow on small cases, whatever case, inputs or
  // placement it meets (bench/fresh_add.sh: `add` of 1-element tensors, 0.58-0.60 us against
  // 0.49-0.50 us in the repetitions after it; an untimed spin of a second before it does not
  // help, the same calls for half a second do). So the process first measures its first job
  // for `process_warmup` seconds (one repetition at least; several when one is shorter: the
  // slow spell outlasts a repetition of a small case) and drops it, as pyperf drops each
  // worker's first value.
  bool process_warm = options.process_warmup <= 0;
  // Case `index` has all its repetitions: puts the disagreeing ones (results::
  // disagreeing_repetitions) back into the schedule and out of `pending`; false when they agree or
  // none may be measured again (the run's retries are spent), and the case is done.
  auto measure_again_if_unstable = [&](std::size_t index) {
    std::vector<results::CaseResult>& kept = pending[index];
    std::vector<Job>& jobs = pending_jobs[index];
    std::vector<double> medians;
    for (const auto& r : kept)
      medians.push_back(r.timing.repetition_medians.empty() ? std::nan("")
                                                            : r.timing.repetition_medians.front());
    std::vector<std::size_t> again;
    for (std::size_t i : results::disagreeing_repetitions(medians)) {
      if (schedule.retry(jobs[i]))
        again.push_back(i);
    }
    if (again.empty())
      return false;
    core::log_debug(fmt::format("{}: {} of {} repetitions again later: their medians are over {}x "
                                "apart",
                                kept.front().c.case_id, again.size(), kept.size(),
                                results::k_unstable_ratio));
    // The last repetition was not journaled yet: it is, unless it is measured again.
    if (std::find(again.begin(), again.end(), kept.size() - 1) == again.end())
      on.kept(kept.back(), jobs.back().repetition);
    for (auto i = again.rbegin(); i != again.rend(); ++i) {
      const results::CaseResult& dropped = kept[*i];
      slow.time_retried += dropped.timing.total_time + dropped.timing.spent.total();
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(*i));
      jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(*i));
    }
    retried[index] += static_cast<std::int64_t>(again.size());
    slow.unstable_measured_again += again.size();
    return true;
  };
  Job job;
  while (schedule.next(job)) {
    const std::size_t index = job.case_index;
    const results::Case& c = cases[index];
    measure::ExecOptions exec_options = on.options_for(c, job);
    if (c.device == "cpu") {
      const auto known = calibration.find(c.case_id);
      if (known != calibration.end())
        exec_options.measure.known = known->second;
    }
    if (!process_warm) {
      process_warm = true;
      measure::ExecOptions dropped = exec_options;
      dropped.dropped = true;
      dropped.memory = false;
      dropped.describe = false;
      dropped.trace_path.clear();
      const auto warmup_start = std::chrono::steady_clock::now();
      int dropped_repetitions = 0;
      do {
        ++dropped_repetitions;
        if (on.measure(c, dropped).status != results::Status::ok)
          break;
      } while (measure::seconds_since(warmup_start) < options.process_warmup);
      slow.time_process_warmup = measure::seconds_since(warmup_start);
      core::log_debug(fmt::format("{}: {} repetition(s) dropped as the process's warmup ({:.2f} s)",
                                  c.case_id, dropped_repetitions, slow.time_process_warmup));
    }
    results::CaseResult repetition = on.measure(c, exec_options);
    // Measured while the machine was slow, or (memory-bound cases) at a memory bandwidth off the
    // usual one so far: measured again later, when the budget allows.
    repetition.c = c;
    slow.bandwidth.add(repetition);
    const double slowdown = gate.slowdown(c.threads, repetition.timing.canary);
    const bool off_bandwidth = slow.bandwidth.off_usual(repetition, options.bandwidth_tolerance);
    // On CUDA, the device's own state: a slowdown reason or a clock under its case's highest.
    const std::string device_slowed =
        repetition.timing.repetition_device_state.size() == 1
            ? device_gate.slowed(c.device, c.case_id,
                                 repetition.timing.repetition_device_state.front())
            : std::string();
    if (repetition.status == results::Status::ok &&
        (gate.disturbed(slowdown) || off_bandwidth || !device_slowed.empty()) &&
        schedule.retry(job)) {
      core::log_debug(
          fmt::format("{}: repetition {} again later: {}", c.case_id, job.repetition,
                      gate.disturbed(slowdown)
                          ? fmt::format("canary {:.1f}% slower than the fastest", slowdown * 100)
                          : (off_bandwidth ? "memory bandwidth off the usual one so far"
                                           : "the device ran slowed: " + device_slowed)));
      if (!gate.disturbed(slowdown) && off_bandwidth)
        ++slow.bandwidth.measured_again;
      else if (!gate.disturbed(slowdown))
        ++slow.device_measured_again;
      ++retried[index];
      slow.time_retried += repetition.timing.total_time + repetition.timing.spent.total();
      continue;
    }
    // Kept on a slowed device (its retries or the run's are spent): marked, never silently.
    if (repetition.status == results::Status::ok && !device_slowed.empty()) {
      repetition.timing.device_slowed_repetitions = 1;
      ++slow.device_slowed_kept;
    }
    // A repetition that failed or was skipped ends its case: the others would say the same. An
    // error says which of the run's repetitions met it.
    const bool case_over = repetition.status != results::Status::ok;
    if (repetition.status == results::Status::error && options.run_repetitions > 1) {
      repetition.message =
          fmt::format("repetition {} of {}: {}", options.first_placement + job.repetition + 1,
                      options.run_repetitions, repetition.message);
    }
    learn_calibration(calibration, repetition);
    pending[index].push_back(std::move(repetition));
    pending_jobs[index].push_back(job);
    if (case_over)
      schedule.drop_case(index);
    if (!case_over && static_cast<int>(pending[index].size()) < needed[index]) {
      on.kept(pending[index].back(), job.repetition);
      continue;
    }
    // Every repetition is in: if they disagree past results::k_unstable_ratio, the slow ones are
    // measured again later, within the retries; what still disagrees is marked unstable.
    if (!case_over && measure_again_if_unstable(index)) {
      continue;
    }
    // The case's last repetition is journalled too, before the case (a supervisor reads the
    // journal as it grows, repetition by repetition: processes.hpp).
    if (!case_over)
      on.kept(pending[index].back(), pending_jobs[index].back().repetition);
    results::CaseResult result = results::combine_repetitions(pending[index], options.estimator);
    result.timing.retried_repetitions = retried[index];
    if (options.set_aside_here)
      slow.bandwidth.apply(result, options.bandwidth_tolerance);
    pending.erase(index);
    pending_jobs.erase(index);
    retried.erase(index);
    on.finish(std::move(result));
  }
  slow.measured_again = schedule.retries();
  slow.repetitions = schedule.jobs();
  slow.fastest_canary = gate.fastest();
  slow.highest_sm_clock = device_gate.highest();
  return slow;
}

} // namespace opbench::run
