#include "opbench/results/result_set.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/results/estimate.hpp"
#include "result_fields.hpp"

namespace opbench::results {
TimeSpent& TimeSpent::operator+=(const TimeSpent& other) {
  inputs += other.inputs;
  recording += other.recording;
  warmup += other.warmup;
  retaken += other.retaken;
  canary += other.canary;
  probes += other.probes;
  return *this;
}

StatusCounts count_statuses(const std::vector<CaseResult>& results) {
  StatusCounts counts;
  for (const auto& r : results)
    counts.add(r.status);
  return counts;
}

void OutputCheck::add(const OutputCheck& other) {
  if (against.empty())
    against = other.against;
  before += other.before;
  after += other.after;
  if (!(worst >= other.worst)) // NaN-safe: a NaN seen stays
    worst = other.worst;
  if (tolerance.empty())
    tolerance = other.tolerance;
  if (failed.empty())
    failed = other.failed;
  if (not_made.empty())
    not_made = other.not_made;
}

Json to_json(const TimeSpent& spent) {
  Json out = Json::object();
  each_phase(spent, [&out](const char* name, const double& value) { out[name] = number(value); });
  return out;
}

Json to_json(const CaseResult& result) {
  Json out = results::to_json(result.c);
  out["status"] = core::name_of(result.status);
  out["message"] = result.message;
  out["estimate"] = {{"unit", "s"},
                     {"estimator", result.estimate.estimator},
                     {"time", number(result.estimate.time)},
                     {"repetitions", result.estimate.repetitions},
                     {"median", number(result.estimate.median)},
                     {"low", number(result.estimate.low)},
                     {"high", number(result.estimate.high)},
                     {"coverage", number(result.estimate.coverage)},
                     {"spread", number(result.estimate.spread)},
                     {"unstable", result.estimate.unstable},
                     {"interval",
                      {{"half_width", number(result.estimate.interval.half_width)},
                       {"allowance", number(result.estimate.interval.allowance)},
                       {"low", number(result.estimate.interval.low)},
                       {"high", number(result.estimate.interval.high)},
                       {"basis", core::name_of(result.estimate.interval.basis)},
                       {"wide", core::name_of(result.estimate.interval.wide)}}}};
  out["stats"] = summary_json(result.summary);
  Json timing = Json::object();
  timing["timer"] = result.timing.timer ? core::name_of(*result.timing.timer) : std::string();
  timing["mode"] = result.timing.mode;
  timing["call_path"] = core::name_of(result.timing.call_path);
  timing["cuda_graph"] = result.timing.cuda_graph;
  timing["measures"] = core::name_of(result.timing.measures);
  if (!result.timing.restored.empty())
    timing["restored"] = result.timing.restored;
  if (!result.timing.cpu_times.empty()) {
    Json cpu = Json::array(), batch = Json::array();
    for (double t : result.timing.cpu_times)
      cpu.push_back(number(t));
    for (double t : result.timing.batch_times)
      batch.push_back(number(t));
    timing["cpu_times"] = cpu;
    timing["batch_times"] = batch;
    timing["cpu_time"] = number(stats::median(result.timing.cpu_times));
    timing["batch_time"] = number(stats::median(result.timing.batch_times));
  }
  timing["block_size"] = result.timing.block_size;
  timing["warmup_calls"] = result.timing.warmup_calls;
  timing["total_time"] = number(result.timing.total_time);
  timing["target_noise"] = number(result.timing.target_noise);
  timing["noise"] = number(result.timing.noise);
  timing["noise_reached"] = result.timing.noise_reached;
  Json medians = Json::array();
  for (double m : result.timing.repetition_medians)
    medians.push_back(number(m));
  timing["repetition_medians"] = medians;
  if (!result.timing.repetition_processes.empty() &&
      result.timing.repetition_processes.size() == result.timing.repetition_medians.size())
    timing["repetition_processes"] = result.timing.repetition_processes;
  timing["discarded_blocks"] = result.timing.discarded_blocks;
  timing["interrupted_kept"] = result.timing.interrupted_kept;
  timing["placement_padding"] = result.timing.placement_padding;
  timing["canary"] = number(result.timing.canary);
  timing["retried_repetitions"] = result.timing.retried_repetitions;
  if (!result.timing.repetition_bandwidth.empty() || !result.timing.set_aside.empty()) {
    Json bandwidth = Json::array();
    for (const auto& pair : result.timing.repetition_bandwidth)
      bandwidth.push_back({number(pair[0]), number(pair[1])});
    timing["repetition_bandwidth"] = bandwidth;
    Json aside = Json::array();
    for (const auto& r : result.timing.set_aside) {
      aside.push_back({{"median", number(r.median)},
                       {"bandwidth", {number(r.bandwidth[0]), number(r.bandwidth[1])}},
                       {"repetition", r.repetition}});
    }
    timing["set_aside"] = aside;
    timing["usual_bandwidth"] = number(result.timing.usual_bandwidth);
  }
  if (!result.timing.repetition_device_state.empty()) {
    Json states = Json::array();
    for (const auto& r : result.timing.repetition_device_state)
      states.push_back({{"start", to_json(r.start)}, {"end", to_json(r.end)}});
    timing["repetition_device_state"] = states;
  }
  if (result.timing.device_slowed_repetitions > 0)
    timing["device_slowed_repetitions"] = result.timing.device_slowed_repetitions;
  timing["spent"] = to_json(result.timing.spent);
  out["timing"] = timing;
  if (result.memory) {
    out["memory"] = {{"peak_bytes", result.memory->peak_bytes},
                     {"total_bytes", result.memory->total_bytes},
                     {"allocations", result.memory->allocations}};
    if (result.memory->device_peak_allocated_bytes) {
      out["memory"]["device_peak_allocated_bytes"] = *result.memory->device_peak_allocated_bytes;
    }
    if (result.memory->device_peak_reserved_bytes) {
      out["memory"]["device_peak_reserved_bytes"] = *result.memory->device_peak_reserved_bytes;
    }
    if (result.memory->kept_for_backward_bytes)
      out["memory"]["kept_for_backward_bytes"] = *result.memory->kept_for_backward_bytes;
  } else {
    out["memory"] = nullptr;
  }
  if (result.kernel_time)
    out["kernel_time"] = to_json(*result.kernel_time);
  Json work = Json::object();
  auto optional_number = [&](const char* key, const std::optional<double>& v) {
    work[key] = v ? number(*v) : Json(nullptr);
  };
  optional_number("flops", result.work.flops);
  optional_number("bytes", result.work.bytes);
  work["flops_rule"] = result.work.flops_rule;
  optional_number("flops_per_second", result.work.flops_per_second);
  optional_number("bytes_per_second", result.work.bytes_per_second);
  optional_number("intensity", result.work.intensity);
  work["bound"] = result.work.bound;
  optional_number("percent_of_peak", result.work.percent_of_peak);
  if (!result.work.ceiling.empty())
    work["ceiling"] = result.work.ceiling;
  if (!result.work.over_peak.empty())
    work["over_peak"] = result.work.over_peak;
  work["peaks"] = result.work.peaks;
  work["aten_calls"] = result.work.aten_calls ? Json(*result.work.aten_calls) : Json(nullptr);
  out["work"] = work;
  if (!result.trace.empty())
    out["trace"] = result.trace;
  if (result.stage_info) {
    const StageInfo& s = *result.stage_info;
    auto count = [](const std::optional<std::int64_t>& v) { return v ? Json(*v) : Json(nullptr); };
    out["stage_info"] = {{"runner", s.runner},
                         {"graph_ops", count(s.graph_ops)},
                         {"fusion_groups", count(s.fusion_groups)},
                         {"fused_ops", count(s.fused_ops)},
                         {"check", number(s.check)},
                         {"tolerance", s.tolerance},
                         {"note", s.note},
                         {"compile_time", s.compile_time ? number(*s.compile_time) : Json(nullptr)},
                         {"compile_cached", s.compile_cached}};
  }
  if (result.check) {
    const OutputCheck& k = *result.check;
    out["check"] = {{"against", k.against},     {"before", k.before},       {"after", k.after},
                    {"worst", number(k.worst)}, {"tolerance", k.tolerance}, {"failed", k.failed},
                    {"not_made", k.not_made},   {"passed", k.passed()}};
  }
  Json samples = Json::array();
  for (double s : result.samples)
    samples.push_back(number(s));
  out["samples"] = samples;
  return out;
}

Json to_json(const ResultSet& set) {
  Json out = Json::object();
  out["schema_version"] = k_schema_version;
  out["context"] = set.context;
  Json cases = Json::array();
  for (const auto& result : set.cases)
    cases.push_back(to_json(result));
  out["cases"] = cases;
  if (!set.summary.empty())
    out["summary"] = set.summary;
  return out;
}

} // namespace opbench::results
