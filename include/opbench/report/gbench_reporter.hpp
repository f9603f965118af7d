#pragma once
#include "opbench/report/reporter.hpp"

namespace opbench::report {
// google/benchmark's JSON output as google/benchmark writes a run with --benchmark_repetitions
// (json_schema_version 1), so its tools/compare.py, github-action-benchmark (tool `googlecpp`) and
// Bencher (`cpp_google`) read opbench results. Per `ok` case (a benchmark family of one instance,
// `run_name` the case id): one `iteration` entry per opbench repetition (its median time per call
// in ns as `real_time`; `cpu_time` the host's time per call on CUDA, else the same; `iterations`
// the case's calls shared out over its repetitions), then from two repetitions on the `mean`,
// `median`, `stddev` and `cv` aggregates over those entries as google/benchmark computes them
// (`cv` a fraction, unit `percentage`). User counters on every entry: bytes_per_second,
// items_per_second (FLOPs), opbench's time and its median's interval (`opbench_*_ns`), peak memory.
// `aggregates_only`: the aggregates alone (--benchmark_report_aggregates_only), the entries of a
// case with one repetition still written. Cases with no time (error, skipped, timeout) have no
// entry; the context's `opbench_not_measured` names them. Field by field: docs/results.md.
class GbenchReporter final : public Reporter {
public:
  explicit GbenchReporter(bool aggregates_only = false) : m_aggregates_only(aggregates_only) {}
  void write(const results::ResultSet& set, std::ostream& out) const override;

private:
  bool m_aggregates_only;
};
} // namespace opbench::report
