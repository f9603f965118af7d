#pragma once
#include "opbench/report/reporter.hpp"

namespace opbench::report {
// google/benchmark's JSON output (context + benchmarks), so google/benchmark's tools/compare.py,
// github-action-benchmark (tool `googlecpp`) and Bencher read opbench results. Each sample is one
// repetition (`run_type: iteration`, `iterations` = block size), followed by the mean, median,
// stddev and cv aggregates; times in ns. opbench measures wall time only: cpu_time = real_time.
// Only `ok` cases are written.
class GbenchReporter final : public Reporter {
public:
  explicit GbenchReporter(bool aggregates_only = false) : m_aggregates_only(aggregates_only) {}
  void write(const results::ResultSet& set, std::ostream& out) const override;

private:
  bool m_aggregates_only;
};
} // namespace opbench::report
