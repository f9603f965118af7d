// CSV view of a comparison: one row per case present in both files.
#include <fmt/format.h>

#include <cmath>

#include "opbench/compare/compare.hpp"
#include "opbench/core/csv_field.hpp"

namespace opbench::compare {

void write_csv(const Comparison& comparison, std::ostream& out) {
  auto number = [](double v, const char* spec) {
    return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : std::string();
  };
  out << "case_id,verdict,reason,base_time_us,new_time_us,ratio,p_value,base_replicates,new_"
         "replicates,speed_factor,memory_verdict,base_peak_bytes,new_peak_bytes,base_total_bytes,"
         "new_total_bytes,threshold,threshold_rule\n";
  auto bytes = [](std::int64_t v) { return v >= 0 ? std::to_string(v) : std::string(); };
  for (const auto& c : comparison.cases) {
    out << core::csv_field(c.case_id) << "," << core::name_of(c.verdict) << ","
        << core::csv_field(c.reason) << "," << number(c.base_time * 1e6, "{:.4f}") << ","
        << number(c.new_time * 1e6, "{:.4f}") << "," << number(c.ratio, "{:.6f}") << ","
        << number(c.p_value, "{:.6g}") << "," << c.base_replicates << "," << c.new_replicates << ","
        << number(c.speed_factor, "{:.6f}") << ","
        << core::csv_field(core::name_of(c.memory.verdict)) << "," << bytes(c.memory.base_peak)
        << "," << bytes(c.memory.new_peak) << "," << bytes(c.memory.base_total) << ","
        << bytes(c.memory.new_total) << "," << number(c.threshold, "{:.6g}") << ","
        << core::csv_field(c.threshold_rule) << "\n";
  }
}

} // namespace opbench::compare
