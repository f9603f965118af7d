#pragma once
// The JSON forms the result file's writer (result_set.cpp) and reader (result_reader.cpp) share.
// Internal to results/.

#include <algorithm>
#include <cmath>
#include <string>

#include "opbench/core/json.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::results {

// NaN and infinities have no JSON form: they are written as null and read back as NaN.
inline Json number(double value) {
  return std::isfinite(value) ? Json(value) : Json(nullptr);
}

inline double read_number(const Json& json, const char* key) {
  if (!json.contains(key) || !json[key].is_number())
    return std::nan("");
  return json[key].get<double>();
}

inline Json summary_json(const stats::Summary& s) {
  Json out = Json::object();
  out["unit"] = "s";
  out["count"] = s.count;
  out["mean"] = number(s.mean);
  out["median"] = number(s.median);
  out["p50"] = number(s.p50);
  out["p90"] = number(s.p90);
  out["p99"] = number(s.p99);
  out["min"] = number(s.min);
  out["max"] = number(s.max);
  out["stddev"] = number(s.stddev);
  out["cv"] = number(s.cv);
  out["iqr"] = number(s.iqr);
  return out;
}

inline stats::Summary summary_from_json(const Json& json, const std::string& where) {
  stats::Summary s;
  s.count = static_cast<std::size_t>(
      std::max<std::int64_t>(0, core::integer_field(json, "count", 0, where)));
  s.mean = read_number(json, "mean");
  s.median = read_number(json, "median");
  s.p50 = read_number(json, "p50");
  s.p90 = read_number(json, "p90");
  s.p99 = read_number(json, "p99");
  s.min = read_number(json, "min");
  s.max = read_number(json, "max");
  s.stddev = read_number(json, "stddev");
  s.cv = read_number(json, "cv");
  s.iqr = read_number(json, "iqr");
  return s;
}

// TimeSpent's fields by their JSON names, for writing and reading alike.
template <typename Spent, typename Visit> void each_phase(Spent& spent, Visit&& visit) {
  visit("inputs", spent.inputs);
  visit("recording", spent.recording);
  visit("warmup", spent.warmup);
  visit("retaken", spent.retaken);
  visit("canary", spent.canary);
  visit("probes", spent.probes);
}

} // namespace opbench::results
