// Reading a result file's records (result_set.hpp): every field checked, a malformed one named
// with its file (ResultsError).
#include <algorithm>
#include <cmath>

#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/result_set.hpp"
#include "result_fields.hpp"

namespace opbench::results {

using core::integer_field;

CaseResult case_result_from_json(const Json& json, const std::string& where) {
  if (!json.is_object())
    throw ResultsError(where + ": a case record must be an object");
  CaseResult result;
  result.c = results::case_from_json(json, where);
  try {
    result.status =
        core::parse_name_or_throw<Status>(json.value("status", std::string("ok")), "status", where);
    result.message = json.value("message", std::string());
    if (json.contains("stats") && json["stats"].is_object()) {
      result.summary = summary_from_json(json["stats"], where);
    }
    if (json.contains("timing") && json["timing"].is_object()) {
      const Json& t = json["timing"];
      if (const auto timer = t.value("timer", std::string()); !timer.empty())
        result.timing.timer = core::parse_name_or_throw<Timer>(timer, "timer", where);
      result.timing.mode = t.value("mode", std::string("hot"));
      result.timing.call_path = core::parse_name_or_throw<CallPath>(
          t.value("call_path", std::string("boxed")), "call path", where);
      result.timing.cuda_graph = t.value("cuda_graph", std::string("off"));
      result.timing.measures = core::parse_name_or_throw<Measures>(
          t.value("measures",
                  std::string(result.timing.timer == Timer::cuda_event ? "batch" : "host")),
          "measures", where);
      auto read_list = [&](const char* key, std::vector<double>& out) {
        if (!t.contains(key) || !t[key].is_array())
          return;
        for (const auto& v : t[key])
          out.push_back(v.is_number() ? v.get<double>() : std::nan(""));
      };
      if (t.contains("restored")) {
        const Json& restored = t["restored"];
        const bool names =
            restored.is_array() && std::all_of(restored.begin(), restored.end(),
                                               [](const Json& v) { return v.is_string(); });
        if (!names)
          throw ResultsError(where + ": timing.restored: expected a list of argument names, got " +
                             restored.dump());
        result.timing.restored = restored.get<std::vector<std::string>>();
      }
      read_list("cpu_times", result.timing.cpu_times);
      read_list("batch_times", result.timing.batch_times);
      result.timing.block_size = integer_field(t, "block_size", 0, where);
      result.timing.warmup_calls = integer_field(t, "warmup_calls", 0, where);
      result.timing.total_time = read_number(t, "total_time");
      result.timing.target_noise = read_number(t, "target_noise");
      result.timing.noise = read_number(t, "noise");
      result.timing.noise_reached = t.value("noise_reached", false);
      if (t.contains("repetition_medians") && t["repetition_medians"].is_array()) {
        for (const auto& m : t["repetition_medians"]) {
          result.timing.repetition_medians.push_back(m.is_number() ? m.get<double>()
                                                                   : std::nan(""));
        }
      }
      // Absent from files before 2026-11-28 and from runs of one process.
      if (t.contains("repetition_processes")) {
        const Json& processes = t["repetition_processes"];
        if (!processes.is_array() || processes.size() != result.timing.repetition_medians.size())
          throw ResultsError(where +
                             ": timing.repetition_processes: expected one process index "
                             "per repetition median (" +
                             std::to_string(result.timing.repetition_medians.size()) + "), got " +
                             processes.dump());
        for (const auto& k : processes) {
          const auto index = core::exact_int64(k);
          if (!index || *index < 0 || *index > 1'000'000)
            throw ResultsError(where + ": timing.repetition_processes: " + k.dump() +
                               " is not a process index (a whole number from 0)");
          result.timing.repetition_processes.push_back(static_cast<int>(*index));
        }
      }
      result.timing.discarded_blocks = integer_field(t, "discarded_blocks", 0, where);
      result.timing.interrupted_kept = integer_field(t, "interrupted_kept", 0, where);
      result.timing.placement_padding = integer_field(t, "placement_padding", 0, where);
      result.timing.canary =
          t.contains("canary") && t["canary"].is_number() ? t["canary"].get<double>() : 0.0;
      result.timing.retried_repetitions = integer_field(t, "retried_repetitions", 0, where);
      // Absent from files before the memory canary, and for cases it does not bracket.
      auto read_pair = [&where](const Json& v, const char* what) {
        if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number()) {
          throw ResultsError(where + ": timing." + what +
                             ": expected [before, after] in bytes/s, got " + v.dump());
        }
        return std::array<double, 2>{v[0].get<double>(), v[1].get<double>()};
      };
      if (t.contains("repetition_bandwidth") && t["repetition_bandwidth"].is_array()) {
        for (const auto& v : t["repetition_bandwidth"]) {
          result.timing.repetition_bandwidth.push_back(read_pair(v, "repetition_bandwidth"));
        }
        if (result.timing.repetition_bandwidth.size() != result.timing.repetition_medians.size()) {
          throw ResultsError(where + ": timing.repetition_bandwidth has " +
                             std::to_string(result.timing.repetition_bandwidth.size()) +
                             " entries, expected one per repetition median (" +
                             std::to_string(result.timing.repetition_medians.size()) + ")");
        }
      }
      if (t.contains("set_aside") && t["set_aside"].is_array()) {
        for (const auto& v : t["set_aside"]) {
          if (!v.is_object() || !v.contains("median") || !v["median"].is_number() ||
              !v.contains("bandwidth")) {
            throw ResultsError(where + ": timing.set_aside: expected {median, bandwidth}, got " +
                               v.dump());
          }
          const std::int64_t repetition = integer_field(v, "repetition", 0, where);
          if (repetition < 0)
            throw ResultsError(where + ": timing.set_aside.repetition must be 0 or more");
          result.timing.set_aside.push_back({v["median"].get<double>(),
                                             read_pair(v["bandwidth"], "set_aside.bandwidth"),
                                             static_cast<std::size_t>(repetition)});
        }
      }
      if (t.contains("repetition_device_state") && t["repetition_device_state"].is_array()) {
        for (const auto& v : t["repetition_device_state"]) {
          if (!v.is_object() || !v.contains("start") || !v.contains("end")) {
            throw ResultsError(
                where + ": timing.repetition_device_state: expected {start, end}, got " + v.dump());
          }
          const std::string at = where + ": timing.repetition_device_state";
          result.timing.repetition_device_state.push_back(
              {device_state_from_json(v["start"], at), device_state_from_json(v["end"], at)});
        }
        if (result.timing.repetition_device_state.size() !=
            result.timing.repetition_medians.size()) {
          throw ResultsError(where + ": timing.repetition_device_state has " +
                             std::to_string(result.timing.repetition_device_state.size()) +
                             " entries, expected one per repetition median (" +
                             std::to_string(result.timing.repetition_medians.size()) + ")");
        }
      }
      result.timing.device_slowed_repetitions =
          integer_field(t, "device_slowed_repetitions", 0, where);
      const double usual = read_number(t, "usual_bandwidth");
      result.timing.usual_bandwidth = std::isfinite(usual) ? usual : 0.0;
      if (t.contains("spent") && t["spent"].is_object()) { // absent from files before it
        each_phase(result.timing.spent, [&t](const char* name, double& value) {
          value = t["spent"].contains(name) && t["spent"][name].is_number()
                      ? t["spent"][name].get<double>()
                      : 0.0;
        });
      }
    }
    if (json.contains("kernel_time") && !json["kernel_time"].is_null())
      result.kernel_time = kernel_time_from_json(json["kernel_time"], where);
    if (json.contains("memory") && json["memory"].is_object()) {
      const Json& m = json["memory"];
      result.memory = MemoryStats{};
      result.memory->peak_bytes = integer_field(m, "peak_bytes", 0, where);
      result.memory->total_bytes = integer_field(m, "total_bytes", 0, where);
      result.memory->allocations = integer_field(m, "allocations", 0, where);
      if (m.contains("device_peak_allocated_bytes")) {
        result.memory->device_peak_allocated_bytes =
            integer_field(m, "device_peak_allocated_bytes", 0, where);
      }
      if (m.contains("device_peak_reserved_bytes")) {
        result.memory->device_peak_reserved_bytes =
            integer_field(m, "device_peak_reserved_bytes", 0, where);
      }
      if (m.contains("kept_for_backward_bytes")) {
        result.memory->kept_for_backward_bytes =
            integer_field(m, "kept_for_backward_bytes", 0, where);
      }
    }
    if (json.contains("work") && json["work"].is_object()) {
      const Json& w = json["work"];
      auto read = [&](const char* key) -> std::optional<double> {
        if (w.contains(key) && w[key].is_number())
          return w[key].get<double>();
        return std::nullopt;
      };
      result.work.flops = read("flops");
      result.work.bytes = read("bytes");
      result.work.flops_rule = w.value("flops_rule", std::string());
      result.work.flops_per_second = read("flops_per_second");
      result.work.bytes_per_second = read("bytes_per_second");
      result.work.intensity = read("intensity");
      result.work.bound = w.value("bound", std::string());
      result.work.percent_of_peak = read("percent_of_peak");
      result.work.ceiling = w.value("ceiling", std::string());
      result.work.over_peak = w.value("over_peak", std::string());
      result.work.peaks = w.value("peaks", std::string());
      if (w.contains("aten_calls") && w["aten_calls"].is_number_integer()) {
        result.work.aten_calls = integer_field(w, "aten_calls", 0, where);
      }
    }
    result.trace = json.value("trace", std::string());
    if (json.contains("stage_info") && json["stage_info"].is_object()) {
      const Json& s = json["stage_info"];
      StageInfo info;
      info.runner = s.value("runner", std::string());
      auto count = [&](const char* key) -> std::optional<std::int64_t> {
        if (!s.contains(key) || s[key].is_null())
          return std::nullopt;
        return integer_field(s, key, 0, where);
      };
      info.graph_ops = count("graph_ops");
      info.fusion_groups = count("fusion_groups");
      info.fused_ops = count("fused_ops");
      info.check = read_number(s, "check");
      info.tolerance = s.value("tolerance", std::string());
      info.note = s.value("note", std::string());
      if (s.contains("compile_time") && s["compile_time"].is_number())
        info.compile_time = read_number(s, "compile_time");
      info.compile_cached = s.contains("compile_cached") && s["compile_cached"].is_boolean() &&
                            s["compile_cached"].get<bool>();
      result.stage_info = info;
    }
    if (json.contains("check") && json["check"].is_object()) {
      const Json& k = json["check"];
      OutputCheck check;
      check.against = k.value("against", std::string());
      check.before = static_cast<int>(integer_field(k, "before", 0, where, 0, 1 << 30));
      check.after = static_cast<int>(integer_field(k, "after", 0, where, 0, 1 << 30));
      check.worst = read_number(k, "worst");
      check.tolerance = k.value("tolerance", std::string());
      check.failed = k.value("failed", std::string());
      check.not_made = k.value("not_made", std::string());
      result.check = check;
    }
    if (json.contains("samples") && json["samples"].is_array()) {
      for (const auto& s : json["samples"])
        result.samples.push_back(s.is_number() ? s.get<double>() : std::nan(""));
    }
    // The estimate is derived data: made again from the repetition medians (files written
    // before it existed have one repetition: the samples' median) with the estimator the run
    // used (files written before there was a choice used the median).
    std::string estimator = "median";
    if (json.contains("estimate") && json["estimate"].is_object() &&
        json["estimate"].contains("estimator")) {
      estimator = json["estimate"]["estimator"].get<std::string>();
      const auto& names = estimator_names();
      if (std::find(names.begin(), names.end(), estimator) == names.end()) {
        throw ResultsError(where + ": estimate.estimator '" + estimator + "' is not one of " +
                           core::join(names, ", "));
      }
    }
    result.estimate.estimator = estimator;
    if (result.status == results::Status::ok) {
      std::vector<double> medians = result.timing.repetition_medians;
      if (medians.empty() && std::isfinite(result.summary.median))
        medians.push_back(result.summary.median);
      // The run's allowance (a noisy run's is wider: results::run_allowance); files from before
      // 2026-11-28 have none.
      double allowance = k_run_allowance;
      const Json& estimate = json.value("estimate", Json::object());
      if (estimate.is_object() && estimate.contains("interval") &&
          estimate["interval"].is_object() && estimate["interval"].contains("allowance") &&
          !estimate["interval"]["allowance"].is_null()) {
        const Json& a = estimate["interval"]["allowance"];
        if (!a.is_number() || !(a.get<double>() >= 0) || !(a.get<double>() <= 10))
          throw ResultsError(where +
                             ": estimate.interval.allowance: expected a relative "
                             "half-width from 0 to 10, got " +
                             a.dump());
        allowance = a.get<double>();
      }
      result.estimate =
          estimate_of(medians, estimator, result.timing.repetition_processes, allowance);
    }
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(where + ": bad case record (" + e.what() + ")");
  }
  return result;
}

ResultSet result_set_from_json(const Json& json, const std::string& where) {
  if (!json.is_object() || !json.contains("schema_version")) {
    throw ResultsError(where + ": not an opbench result file (no schema_version)");
  }
  const std::int64_t version = integer_field(json, "schema_version", 0, where);
  if (version > k_schema_version) {
    throw ResultsError(where + ": schema_version " + std::to_string(version) +
                       " is newer than this opbench reads (" + std::to_string(k_schema_version) +
                       ")");
  }
  ResultSet set;
  for (const char* key : {"context", "summary"}) {
    if (json.contains(key) && !json[key].is_object()) {
      throw ResultsError(where + ": '" + key + "' must be an object, found " +
                         json[key].type_name());
    }
  }
  set.context = json.value("context", Json::object());
  set.summary = json.value("summary", Json::object());
  if (!json.contains("cases") || !json["cases"].is_array()) {
    throw ResultsError(where + ": missing 'cases' list");
  }
  for (std::size_t i = 0; i < json["cases"].size(); ++i) {
    set.cases.push_back(
        case_result_from_json(json["cases"][i], where + ": cases[" + std::to_string(i) + "]"));
  }
  return set;
}

} // namespace opbench::results
