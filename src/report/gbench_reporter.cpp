#include "opbench/report/gbench_reporter.hpp"

#include <cmath>

namespace opbench::report {
namespace {

std::string context_text(const Json& context, const char* key) {
  return context.contains(key) && context[key].is_string() ? context[key].get<std::string>() : "";
}

} // namespace

void GbenchReporter::write(const results::ResultSet& set, std::ostream& out) const {
  const Json& ctx = set.context;
  Json context = Json::object();
  context["date"] = context_text(ctx, "date");
  context["host_name"] = context_text(ctx, "host");
  context["executable"] = "opbench";
  context["num_cpus"] = ctx.value("logical_cores", 0);
  context["mhz_per_cpu"] = 0;
  context["cpu_scaling_enabled"] = false;
  context["caches"] = Json::array();
  context["library_build_type"] = "release";
  context["json_schema_version"] = 1;
  context["opbench_version"] = context_text(ctx, "opbench_version");
  context["libtorch_version"] = context_text(ctx, "libtorch_version");
  context["cpu_model"] = context_text(ctx, "cpu_model");

  Json benchmarks = Json::array();
  int family = 0;
  for (const auto& r : set.cases) {
    if (r.status != results::Status::ok || r.samples.empty())
      continue;
    const auto repetitions = static_cast<std::int64_t>(r.samples.size());
    auto entry = [&](const std::string& name) {
      Json b = Json::object();
      b["name"] = name;
      b["family_index"] = family;
      b["per_family_instance_index"] = 0;
      b["run_name"] = r.c.case_id;
      return b;
    };
    if (!m_aggregates_only) {
      for (std::int64_t i = 0; i < repetitions; ++i) {
        Json b = entry(r.c.case_id);
        b["run_type"] = "iteration";
        b["repetitions"] = repetitions;
        b["repetition_index"] = i;
        b["threads"] = 1;
        b["iterations"] = r.timing.block_size;
        b["real_time"] = r.samples[static_cast<std::size_t>(i)] * 1e9;
        b["cpu_time"] = r.samples[static_cast<std::size_t>(i)] * 1e9;
        b["time_unit"] = "ns";
        benchmarks.push_back(b);
      }
    }
    const std::pair<const char*, double> aggregates[] = {{"mean", r.summary.mean},
                                                         {"median", r.summary.median},
                                                         {"stddev", r.summary.stddev},
                                                         {"cv", r.summary.cv}};
    for (const auto& [name, value] : aggregates) {
      if (!std::isfinite(value))
        continue;
      const bool is_cv = std::string(name) == "cv";
      Json b = entry(r.c.case_id + "_" + name);
      b["run_type"] = "aggregate";
      b["repetitions"] = repetitions;
      b["threads"] = 1;
      b["aggregate_name"] = name;
      b["aggregate_unit"] = is_cv ? "percentage" : "time";
      b["iterations"] = repetitions;
      b["real_time"] = is_cv ? value : value * 1e9;
      b["cpu_time"] = is_cv ? value : value * 1e9;
      b["time_unit"] = "ns";
      benchmarks.push_back(b);
    }
    ++family;
  }
  Json doc = Json::object();
  doc["context"] = context;
  doc["benchmarks"] = benchmarks;
  out << doc.dump(2) << "\n";
}

} // namespace opbench::report
