#include "opbench/report/gbench_reporter.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::report {
namespace {

// google/benchmark's context block: its own keys, then opbench's as strings (google/benchmark's
// custom context holds strings only).
Json gbench_context(const Json& ctx, const std::string& not_measured) {
  Json context = Json::object();
  context["date"] = core::text_field(ctx, "date");
  context["host_name"] = core::text_field(ctx, "host");
  const std::string command = core::text_field(ctx, "command_line");
  context["executable"] = command.substr(0, command.find(' '));
  context["num_cpus"] = ctx.value("logical_cores", 0);
  const Json mhz = ctx.value("cpu_mhz", Json());
  context["mhz_per_cpu"] =
      mhz.is_number() ? static_cast<std::int64_t>(std::llround(mhz.get<double>())) : 0;
  const std::string governor = core::text_field(ctx, "cpu_governor");
  context["cpu_scaling_enabled"] = !governor.empty() && governor != "performance";
  context["caches"] = ctx.value("caches", Json::array());
  context["load_avg"] = ctx.value("load_average", Json::array());
  context["library_build_type"] = "release";
  context["json_schema_version"] = 1;
  for (const char* key : {"opbench_version", "libtorch_version", "cpu_model", "estimator"})
    context[key] = core::text_field(ctx, key);
  if (ctx.contains("ab_side")) // one side of an A/B file (ab::side_results)
    context["opbench_ab_side"] = core::text_field(ctx, "ab_side");
  if (!not_measured.empty())
    context["opbench_not_measured"] = not_measured;
  return context;
}

// One value per repetition of a case: its time and what google/benchmark would count beside it.
struct Repetition {
  double real = 0; // seconds per call
  double cpu = 0;
  std::vector<std::pair<std::string, double>> counters;
};

std::vector<Repetition> repetitions_of(const results::CaseResult& r) {
  // A file from before repetitions were kept holds its one repetition as its samples' median.
  std::vector<double> medians = r.timing.repetition_medians;
  if (medians.empty() && std::isfinite(r.summary.median))
    medians.push_back(r.summary.median);
  const bool cpu_times = r.timing.cpu_times.size() == medians.size();
  std::vector<Repetition> out;
  for (std::size_t i = 0; i < medians.size(); ++i) {
    Repetition rep;
    rep.real = medians[i];
    rep.cpu = cpu_times ? r.timing.cpu_times[i] : medians[i];
    // A counter is a number (JSON has no NaN): one opbench does not know is left out.
    auto count = [&rep](const char* name, double value) {
      if (std::isfinite(value))
        rep.counters.emplace_back(name, value);
    };
    if (r.work.bytes && *r.work.bytes > 0)
      count("bytes_per_second", *r.work.bytes / rep.real);
    if (r.work.flops && *r.work.flops > 0)
      count("items_per_second", *r.work.flops / rep.real);
    count("opbench_time_ns", r.estimate.time * 1e9);
    count("opbench_median_low_ns", r.estimate.low * 1e9);
    count("opbench_median_high_ns", r.estimate.high * 1e9);
    count("opbench_interval_low_ns", r.estimate.interval.low * 1e9);
    count("opbench_interval_high_ns", r.estimate.interval.high * 1e9);
    if (r.memory)
      count("opbench_peak_bytes", static_cast<double>(r.memory->peak_bytes));
    out.push_back(std::move(rep));
  }
  return out;
}

// A case's calls per repetition: its timed blocks' calls shared out evenly (opbench keeps the
// pooled blocks, not which repetition timed each).
std::int64_t calls_per_repetition(const results::CaseResult& r, std::size_t repetitions) {
  const double calls =
      static_cast<double>(r.samples.size()) * static_cast<double>(r.timing.block_size);
  const auto per =
      static_cast<std::int64_t>(std::llround(calls / static_cast<double>(repetitions)));
  return per > 0 ? per : std::max<std::int64_t>(r.timing.block_size, 1);
}

struct Aggregate {
  const char* name;
  bool percentage;
  std::function<double(const std::vector<double>&)> of;
};

const std::vector<Aggregate>& aggregates() {
  static const std::vector<Aggregate> list = {
      {"mean", false, [](const std::vector<double>& v) { return stats::mean(v); }},
      {"median", false, [](const std::vector<double>& v) { return stats::median(v); }},
      {"stddev", false, [](const std::vector<double>& v) { return stats::stddev(v); }},
      {"cv", true, [](const std::vector<double>& v) {
         const double cv = stats::cv(v);
         return std::isfinite(cv) ? cv : 0.0; // google/benchmark: 0 when the mean is 0
       }}};
  return list;
}

} // namespace

void GbenchReporter::write(const results::ResultSet& set, std::ostream& out) const {
  std::vector<std::string> left_out;
  Json benchmarks = Json::array();
  std::int64_t family = 0;
  for (const auto& r : set.cases) {
    const std::vector<Repetition> reps = repetitions_of(r);
    if (r.status != results::Status::ok || reps.empty()) {
      left_out.push_back(fmt::format("{} ({}{}{})", r.c.case_id, core::name_of(r.status),
                                     r.message.empty() ? "" : ": ", r.message));
      continue;
    }
    const auto n = static_cast<std::int64_t>(reps.size());
    auto entry = [&](const std::string& name, const char* run_type) {
      Json b = Json::object();
      b["name"] = name;
      b["family_index"] = family;
      b["per_family_instance_index"] = 0;
      b["run_name"] = r.c.case_id;
      b["run_type"] = run_type;
      b["repetitions"] = n;
      return b;
    };
    // google/benchmark reports each repetition unless told to report aggregates only, and has
    // aggregates only from two repetitions on.
    if (!m_aggregates_only || n < 2) {
      const std::int64_t calls = calls_per_repetition(r, reps.size());
      for (std::int64_t i = 0; i < n; ++i) {
        const Repetition& rep = reps[static_cast<std::size_t>(i)];
        Json b = entry(r.c.case_id, "iteration");
        b["repetition_index"] = i;
        b["threads"] = 1;
        b["iterations"] = calls;
        b["real_time"] = rep.real * 1e9;
        b["cpu_time"] = rep.cpu * 1e9;
        b["time_unit"] = "ns";
        for (const auto& [name, value] : rep.counters)
          b[name] = value;
        benchmarks.push_back(std::move(b));
      }
    }
    if (n >= 2) {
      auto column = [&](const std::function<double(const Repetition&)>& pick) {
        std::vector<double> values;
        for (const auto& rep : reps)
          values.push_back(pick(rep));
        return values;
      };
      const std::vector<double> real = column([](const Repetition& x) { return x.real; });
      const std::vector<double> cpu = column([](const Repetition& x) { return x.cpu; });
      for (const Aggregate& a : aggregates()) {
        Json b = entry(r.c.case_id + "_" + a.name, "aggregate");
        b["threads"] = 1;
        b["aggregate_name"] = a.name;
        b["aggregate_unit"] = a.percentage ? "percentage" : "time";
        b["iterations"] = n;
        const double scale = a.percentage ? 1.0 : 1e9; // a percentage is a fraction
        b["real_time"] = a.of(real) * scale;
        b["cpu_time"] = a.of(cpu) * scale;
        b["time_unit"] = "ns";
        for (std::size_t k = 0; k < reps.front().counters.size(); ++k) {
          const std::vector<double> values =
              column([k](const Repetition& x) { return x.counters[k].second; });
          b[reps.front().counters[k].first] = a.of(values);
        }
        benchmarks.push_back(std::move(b));
      }
    }
    ++family;
  }
  std::string not_measured;
  if (!left_out.empty()) {
    not_measured = fmt::format("{} of {} cases have no time: ", left_out.size(), set.cases.size());
    for (std::size_t i = 0; i < left_out.size(); ++i)
      not_measured += (i == 0 ? "" : "; ") + left_out[i];
  }
  Json doc = Json::object();
  doc["context"] = gbench_context(set.context, not_measured);
  doc["benchmarks"] = benchmarks;
  out << doc.dump(2) << "\n";
}

} // namespace opbench::report
