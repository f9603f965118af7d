#include "opbench/cost/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"

namespace opbench::cost {

PeakStore PeakStore::load(const std::string& path) {
  PeakStore store;
  if (!core::path_exists(path))
    return store;
  std::string text;
  try {
    text = core::read_file(path);
  } catch (const Error& e) {
    throw ResultsError(std::string(e.what()) + "; expected a peaks file (`opbench calibrate`)");
  }
  std::string error;
  const std::optional<Json> doc = core::parse_json(text, &error);
  if (!doc)
    throw ResultsError(path + ": not a peaks file written by `opbench calibrate` (" + error + ")");
  try {
    for (const auto& e : doc->at("peaks")) {
      Peaks p;
      p.device = e.at("device").get<std::string>();
      p.dtype = e.at("dtype").get<std::string>();
      const auto threads = core::exact_int64(e.at("threads"));
      if (!threads || *threads < 1 || *threads > (1 << 16))
        throw ResultsError(path + ": a peaks entry's 'threads' is not a thread count");
      p.threads = static_cast<int>(*threads);
      p.copy_bandwidth = e.at("copy_bandwidth").get<double>();
      p.triad_bandwidth = e.at("triad_bandwidth").get<double>();
      p.gemm_flops = e.at("gemm_flops").get<double>();
      p.context = e.value("context", Json::object());
      for (const auto& c : e.value("caches", Json::array())) {
        p.caches.push_back({c.at("level").get<std::string>(), c.at("bytes").get<std::int64_t>(),
                            c.at("bandwidth").get<double>()});
      }
      store.m_entries.push_back(p);
    }
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(path + ": not a peaks file written by `opbench calibrate` (" + e.what() +
                       ")");
  }
  return store;
}

void PeakStore::save(const std::string& path) const {
  Json peaks = Json::array();
  for (const auto& p : m_entries) {
    Json caches = Json::array();
    for (const auto& c : p.caches)
      caches.push_back({{"level", c.level}, {"bytes", c.bytes}, {"bandwidth", c.bandwidth}});
    peaks.push_back({{"device", p.device},
                     {"dtype", p.dtype},
                     {"threads", p.threads},
                     {"copy_bandwidth", p.copy_bandwidth},
                     {"triad_bandwidth", p.triad_bandwidth},
                     {"gemm_flops", p.gemm_flops},
                     {"caches", caches},
                     {"context", p.context}});
  }
  core::write_atomically(path, Json({{"schema_version", 1}, {"peaks", peaks}}).dump(2) + "\n");
}

const Peaks* PeakStore::find(const std::string& device, const std::string& dtype,
                             int threads) const {
  for (const auto& p : m_entries) {
    if (p.device == device && p.dtype == dtype && p.threads == threads)
      return &p;
  }
  return nullptr;
}

void PeakStore::put(const Peaks& peaks) {
  for (auto& p : m_entries) {
    if (p.device == peaks.device && p.dtype == peaks.dtype && p.threads == peaks.threads) {
      p = peaks;
      return;
    }
  }
  m_entries.push_back(peaks);
}

std::string hardware_of(const Json& context, const std::string& device) {
  if (!context.is_object())
    return "";
  if (device == "cpu") {
    const Json& model = context.value("cpu_model", Json());
    return model.is_string() ? model.get<std::string>() : "";
  }
  const Json& devices = context.value("cuda_devices", Json());
  if (!devices.is_array())
    return "";
  for (const Json& d : devices) {
    if (d.is_object() && d.value("device", Json()) == device && d.value("name", Json()).is_string())
      return d["name"].get<std::string>();
  }
  return "";
}

PeakStore peaks_for(const PeakStore& store, const Json& run_context,
                    std::vector<std::string>& refused) {
  PeakStore out;
  for (const Peaks& p : store.entries()) {
    const std::string here = hardware_of(run_context, p.device);
    const std::string there = hardware_of(p.context, p.device);
    if (here.empty() || here == there) {
      out.put(p);
      continue;
    }
    const std::string entry = p.device + "/" + p.dtype + "/t" + std::to_string(p.threads);
    refused.push_back(there.empty() ? entry + ": records no hardware: calibrate again"
                                    : entry + ": calibrated on " + there + ", this is " + here);
  }
  return out;
}

std::string default_peaks_path() {
  if (const char* env = std::getenv("OPBENCH_PEAKS"); env != nullptr && *env != '\0')
    return env;
  std::string base;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    base = std::string(home) + "/.cache";
  } else {
    base = ".";
  }
  return base + "/opbench/peaks.json";
}

std::pair<std::string, double> memory_ceiling(const Peaks& peaks, double bytes) {
  for (const auto& c : peaks.caches) {
    if (c.bandwidth > 0 && bytes <= static_cast<double>(c.bytes))
      return {c.level, std::max(c.bandwidth, peaks.memory_bandwidth())};
  }
  return {"DRAM", peaks.memory_bandwidth()};
}

void apply_roofline(WorkInfo& work, double median_seconds, const Peaks* peaks) {
  if (!(median_seconds > 0) || !std::isfinite(median_seconds))
    return;
  if (work.bytes && *work.bytes == 0 && (!work.flops || *work.flops == 0)) {
    work.bound = k_no_data_bound; // a view or an unfilled factory: no roof applies
    return;
  }
  if (work.flops)
    work.flops_per_second = *work.flops / median_seconds;
  if (work.bytes)
    work.bytes_per_second = *work.bytes / median_seconds;
  if (work.flops && work.bytes && *work.bytes > 0)
    work.intensity = *work.flops / *work.bytes;
  if (peaks == nullptr || peaks->memory_bandwidth() <= 0)
    return;
  work.peaks = peaks->device + "/" + peaks->dtype + "/t" + std::to_string(peaks->threads);
  const auto [level, bandwidth] = memory_ceiling(*peaks, work.bytes.value_or(0));
  if (work.intensity && peaks->gemm_flops > 0) {
    const bool memory_bound = *work.intensity < peaks->gemm_flops / bandwidth;
    work.bound = memory_bound ? "memory" : "compute";
    work.percent_of_peak = memory_bound ? 100.0 * *work.bytes_per_second / bandwidth
                                        : 100.0 * *work.flops_per_second / peaks->gemm_flops;
    if (memory_bound)
      work.ceiling = level;
  } else if (!work.flops && work.bytes_per_second) {
    // No FLOPs rule: data movement is all that is known, so the memory roof is the only one to
    // hold the case against, and the bound says so.
    work.bound = k_bytes_only_bound;
    work.percent_of_peak = 100.0 * *work.bytes_per_second / bandwidth;
    work.ceiling = level;
  }
  if (work.percent_of_peak && *work.percent_of_peak > 100.0) {
    work.over_peak =
        work.ceiling.empty()
            ? "faster than the calibrated mm: the FLOPs rule counts more than the kernel computes"
            : "faster than a copy within " + work.ceiling +
                  ": the call moves fewer bytes than the lower bound counts (an input it does not "
                  "read in full), or its data stays in a faster level between calls";
  }
}

} // namespace opbench::cost
