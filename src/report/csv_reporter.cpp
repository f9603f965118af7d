#include "opbench/report/csv_reporter.hpp"

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "opbench/core/csv_field.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::report {
namespace {

std::string micros(double seconds) {
  return std::isfinite(seconds) ? fmt::format("{:.4f}", seconds * 1e6) : "";
}

std::string optional(const std::optional<double>& v, const char* spec, double scale) {
  return v && std::isfinite(*v) ? fmt::format(fmt::runtime(spec), *v * scale) : std::string();
}

} // namespace

void CsvReporter::write(const results::ResultSet& set, std::ostream& out) const {
  // The case's time first, then how sure it is, then what the case is, then the pooled samples
  // (docs/results.md lists every column once).
  out << "case_id,status,time_us,estimator,interval_half_width,interval_low_us,interval_high_us,"
         "interval_wide,median_us,median_low_us,median_high_us,median_coverage,"
         "spread,unstable,cv,repetitions,noise_reached,name,kind,operator,shape_class,dtype,device,"
         "threads,"
         "direction,message,samples,block_size,pooled_median_us,mean_us,p90_us,p99_us,min_us,"
         "max_us,stddev_us,pooled_cv,iqr_us,peak_bytes,total_bytes,allocations,kept_for_backward_"
         "bytes,"
         "flops,bytes,"
         "gflops_per_s,gb_per_s,intensity,bound,percent_of_peak,ceiling,measures,cpu_time_us,"
         "batch_time_us,kernel_time_us,kernels_per_call,copies_per_call,kernel_off_stream\n";
  auto fraction = [](double v) { return std::isfinite(v) ? fmt::format("{:.5f}", v) : ""; };
  for (const auto& r : set.cases) {
    const auto& s = r.summary;
    const bool ok = r.status == results::Status::ok;
    std::vector<std::string> cells = {
        core::csv_field(r.c.case_id),
        core::name_of(r.status),
        micros(r.estimate.time),
        r.estimate.estimator,
        fraction(r.estimate.interval.half_width),
        micros(r.estimate.interval.low),
        micros(r.estimate.interval.high),
        ok && r.estimate.interval.wide != results::WideReason::none
            ? core::csv_field(core::name_of(r.estimate.interval.wide))
            : "",
        micros(r.estimate.median),
        micros(r.estimate.low),
        micros(r.estimate.high),
        std::isfinite(r.estimate.coverage) ? fmt::format("{:.4f}", r.estimate.coverage) : "",
        fraction(r.estimate.spread),
        r.estimate.unstable ? "true" : "false",
        ok ? fraction(r.timing.noise) : "",
        std::to_string(r.estimate.repetitions),
        r.timing.noise_reached ? "true" : "false",
        core::csv_field(r.c.name),
        core::name_of(r.c.kind),
        core::csv_field(r.c.op),
        core::csv_field(r.c.shape_class),
        r.c.dtype,
        r.c.device,
        std::to_string(r.c.threads),
        core::name_of(r.c.direction),
        core::csv_field(r.message),
        std::to_string(s.count),
        std::to_string(r.timing.block_size),
        micros(s.p50),
        micros(s.mean),
        micros(s.p90),
        micros(s.p99),
        micros(s.min),
        micros(s.max),
        micros(s.stddev),
        fraction(s.cv),
        micros(s.iqr),
        r.memory ? std::to_string(r.memory->peak_bytes) : "",
        r.memory ? std::to_string(r.memory->total_bytes) : "",
        r.memory ? std::to_string(r.memory->allocations) : "",
        r.memory && r.memory->kept_for_backward_bytes
            ? std::to_string(*r.memory->kept_for_backward_bytes)
            : "",
        optional(r.work.flops, "{:.0f}", 1),
        optional(r.work.bytes, "{:.0f}", 1),
        optional(r.work.flops_per_second, "{:.4f}", 1e-9),
        optional(r.work.bytes_per_second, "{:.4f}", 1e-9),
        optional(r.work.intensity, "{:.4f}", 1),
        r.work.bound,
        optional(r.work.percent_of_peak, "{:.2f}", 1),
        core::csv_field(r.work.ceiling),
        core::name_of(r.timing.measures),
        r.timing.cpu_times.empty() ? "" : micros(stats::median(r.timing.cpu_times)),
        r.timing.batch_times.empty() ? "" : micros(stats::median(r.timing.batch_times)),
        r.kernel_time ? micros(r.kernel_time->per_call) : "",
        r.kernel_time ? fmt::format("{:g}", r.kernel_time->kernels_per_call) : "",
        r.kernel_time ? fmt::format("{:g}", r.kernel_time->copies_per_call) : "",
        r.kernel_time ? core::csv_field(r.kernel_time->off_stream) : ""};
    for (std::size_t i = 0; i < cells.size(); ++i)
      out << (i ? "," : "") << cells[i];
    out << "\n";
  }
}

} // namespace opbench::report
