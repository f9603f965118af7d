#pragma once
// A checker of google/benchmark's JSON output (json_schema_version 1), written from what
// google/benchmark defines and reads: src/json_reporter.cc (the keys of the context and of each
// run, which appear for which run type), src/statistics.cc (aggregates from two repetitions on,
// their names, units and `iterations` = the repetitions), and tools/gbench (report.py, util.py:
// compare.py groups entries by `name`, U-tests a group's `real_time`/`cpu_time`, skips
// `aggregate` entries in its geometric mean, and refuses another json_schema_version). Returns
// what is wrong, one line each, naming the entry; empty when the document is as google/benchmark
// would write it.

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"

namespace opbench::testing {

inline std::vector<std::string> gbench_schema_problems(const Json& doc) {
  std::vector<std::string> problems;
  auto problem = [&](const std::string& where, const std::string& what) {
    problems.push_back(where + ": " + what);
  };
  if (!doc.is_object() || !doc.contains("context") || !doc["context"].is_object() ||
      !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    problem("document", "expected an object with a \"context\" object and a \"benchmarks\" array");
    return problems;
  }
  const Json& ctx = doc["context"];
  const std::set<std::string> own = {"date",
                                     "host_name",
                                     "executable",
                                     "num_cpus",
                                     "mhz_per_cpu",
                                     "cpu_scaling_enabled",
                                     "caches",
                                     "load_avg",
                                     "library_build_type",
                                     "library_version",
                                     "aslr_enabled",
                                     "json_schema_version"};
  for (const char* key : {"date", "host_name", "executable", "library_build_type"}) {
    if (!ctx.contains(key) || !ctx[key].is_string())
      problem(std::string("context.") + key, "expected a string");
  }
  for (const char* key : {"num_cpus", "mhz_per_cpu"}) {
    if (!ctx.contains(key) || !ctx[key].is_number_integer())
      problem(std::string("context.") + key, "expected an integer");
  }
  if (!ctx.contains("cpu_scaling_enabled") || !ctx["cpu_scaling_enabled"].is_boolean())
    problem("context.cpu_scaling_enabled", "expected true or false");
  if (ctx.value("json_schema_version", Json()) != 1)
    problem("context.json_schema_version", "expected 1 (compare.py refuses any other)");
  if (ctx.contains("library_build_type") && ctx["library_build_type"] != "release" &&
      ctx["library_build_type"] != "debug")
    problem("context.library_build_type", "expected \"release\" or \"debug\"");
  if (!ctx.contains("caches") || !ctx["caches"].is_array()) {
    problem("context.caches", "expected an array");
  } else {
    for (const Json& c : ctx["caches"]) {
      if (!c.value("type", Json()).is_string() || !c.value("level", Json()).is_number_integer() ||
          !c.value("size", Json()).is_number_integer() ||
          !c.value("num_sharing", Json()).is_number_integer())
        problem("context.caches", "expected {type, level, size, num_sharing}: " + c.dump());
    }
  }
  if (ctx.contains("load_avg")) {
    bool numbers = ctx["load_avg"].is_array();
    for (const Json& v : numbers ? ctx["load_avg"] : Json::array())
      numbers = numbers && v.is_number();
    if (!numbers)
      problem("context.load_avg", "expected an array of numbers");
  }
  for (const auto& [key, value] : ctx.items()) {
    if (own.count(key) == 0 && !value.is_string())
      problem("context." + key, "a custom context value is a string (AddCustomContext)");
  }

  // Runs: each family's iterations (repetition_index 0, 1, ...) then its aggregates.
  const std::set<std::string> run_keys = {"name",
                                          "family_index",
                                          "per_family_instance_index",
                                          "run_name",
                                          "run_type",
                                          "repetitions",
                                          "repetition_index",
                                          "threads",
                                          "aggregate_name",
                                          "aggregate_unit",
                                          "iterations",
                                          "real_time",
                                          "cpu_time",
                                          "time_unit",
                                          "error_occurred",
                                          "error_message",
                                          "skipped",
                                          "skip_message",
                                          "label"};
  const std::set<std::string> aggregates = {"mean", "median", "stddev", "cv"};
  long long family = -1;
  long long next_index = 0;
  const auto& runs = doc["benchmarks"];
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Json& b = runs[i];
    const std::string at = "benchmarks[" + std::to_string(i) + "]";
    if (!b.is_object()) {
      problem(at, "expected an object");
      continue;
    }
    for (const char* key : {"name", "run_name", "run_type", "time_unit"}) {
      if (!b.value(key, Json()).is_string())
        problem(at + "." + key, "expected a string");
    }
    for (const char* key :
         {"family_index", "per_family_instance_index", "repetitions", "threads", "iterations"}) {
      if (!b.value(key, Json()).is_number_integer())
        problem(at + "." + key, "expected an integer");
    }
    for (const char* key : {"real_time", "cpu_time"}) {
      if (!b.value(key, Json()).is_number() || !std::isfinite(b[key].get<double>()))
        problem(at + "." + key, "expected a finite number");
    }
    if (!problems.empty() && problems.back().rfind(at, 0) == 0)
      continue;
    const std::string unit = b["time_unit"];
    if (unit != "ns" && unit != "us" && unit != "ms" && unit != "s")
      problem(at + ".time_unit", "expected ns, us, ms or s");
    if (b["threads"].get<long long>() < 1 || b["repetitions"].get<long long>() < 1)
      problem(at, "threads and repetitions are at least 1");
    for (const auto& [key, value] : b.items()) {
      if (run_keys.count(key) == 0 && !value.is_number())
        problem(at + "." + key, "a user counter is a number");
    }
    const std::string type = b["run_type"];
    const std::string name = b["name"], run_name = b["run_name"];
    const long long f = b["family_index"];
    if (type == "iteration") {
      if (!b.value("repetition_index", Json()).is_number_integer()) {
        problem(at + ".repetition_index", "an iteration has its repetition_index");
        continue;
      }
      if (b.contains("aggregate_name") || b.contains("aggregate_unit"))
        problem(at, "an iteration has no aggregate_name or aggregate_unit");
      if (name != run_name)
        problem(at + ".name", "an iteration's name is its run_name");
      const long long index = b["repetition_index"];
      if (index == 0 && f == family + 1) {
        family = f;
        next_index = 0;
      }
      if (f != family || index != next_index)
        problem(at, "expected family " + std::to_string(family) + "'s repetition " +
                        std::to_string(next_index));
      next_index = index + 1;
      if (index >= b["repetitions"].get<long long>())
        problem(at + ".repetition_index", "at least repetitions");
      if (b["iterations"].get<long long>() < 1)
        problem(at + ".iterations", "at least 1");
    } else if (type == "aggregate") {
      if (b.contains("repetition_index"))
        problem(at, "an aggregate has no repetition_index");
      const std::string aggregate = b.value("aggregate_name", std::string());
      if (aggregates.count(aggregate) == 0)
        problem(at + ".aggregate_name", "expected mean, median, stddev or cv");
      const std::string expected_unit = aggregate == "cv" ? "percentage" : "time";
      if (b.value("aggregate_unit", std::string()) != expected_unit)
        problem(at + ".aggregate_unit", "expected " + expected_unit);
      if (name != run_name + "_" + aggregate)
        problem(at + ".name", "an aggregate's name is run_name + \"_\" + aggregate_name");
      if (b["repetitions"].get<long long>() < 2)
        problem(at, "aggregates come from two repetitions on");
      if (b["iterations"] != b["repetitions"])
        problem(at + ".iterations", "an aggregate's iterations are its repetitions");
      if (f != family && f != family + 1)
        problem(at + ".family_index", "families are numbered in order");
      family = f;
      next_index = 0;
    } else {
      problem(at + ".run_type", "expected iteration or aggregate");
    }
  }
  return problems;
}

} // namespace opbench::testing
