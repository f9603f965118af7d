#include "opbench/report/csv_reporter.hpp"

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "opbench/report/csv_field.hpp"

namespace opbench::report {
namespace {

std::string micros(double seconds) {
  return std::isfinite(seconds) ? fmt::format("{:.4f}", seconds * 1e6) : "";
}

}  // namespace

void CsvReporter::write(const results::ResultSet& set, std::ostream& out) const {
  out << "case_id,name,kind,operator,shape_class,dtype,device,threads,direction,status,message,"
         "samples,block_size,mean_us,median_us,p50_us,p90_us,p99_us,min_us,max_us,stddev_us,cv,"
         "iqr_us,noise_reached,peak_bytes,total_bytes,allocations\n";
  for (const auto& r : set.cases) {
    const auto& s = r.summary;
    std::vector<std::string> cells = {
        csv_field(r.c.case_id), csv_field(r.c.name), r.c.kind, csv_field(r.c.op), csv_field(r.c.shape_class),
        r.c.dtype, r.c.device, std::to_string(r.c.threads), r.c.direction, r.status,
        csv_field(r.message), std::to_string(s.count), std::to_string(r.timing.block_size),
        micros(s.mean), micros(s.median), micros(s.p50), micros(s.p90), micros(s.p99),
        micros(s.min), micros(s.max), micros(s.stddev),
        std::isfinite(s.cv) ? fmt::format("{:.5f}", s.cv) : "", micros(s.iqr),
        r.timing.noise_reached ? "true" : "false",
        r.memory ? std::to_string(r.memory->peak_bytes) : "",
        r.memory ? std::to_string(r.memory->total_bytes) : "",
        r.memory ? std::to_string(r.memory->allocations) : ""};
    for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << cells[i];
    out << "\n";
  }
}

}  // namespace opbench::report
