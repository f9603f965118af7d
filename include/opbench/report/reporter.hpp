#pragma once
// Reporters are views of a ResultSet: one interface, one reporter per file.

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "opbench/core/formats.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::report {

class Reporter {
public:
  virtual ~Reporter() = default;
  virtual void write(const results::ResultSet& set, std::ostream& out) const = 0;
};

// The views `export` writes (csv, md, json, gbench, breakdown, html: html without its extras,
// see html_reporter.hpp; stages, stages-csv: stage_reporter.hpp; variants), one reporter each;
// `aggregates_only` leaves gbench's per-sample entries out. core::write_as picks one.
const std::vector<core::Format<results::ResultSet>>& reporter_formats(bool aggregates_only = false);

// Writes `set` as `format` (reporter_formats); throws UsageError for any other format.
void write_report(const std::string& format, const results::ResultSet& set, std::ostream& out,
                  bool aggregates_only = false);

// Every output names a statistic the same way and shows the same value for it (the table in
// docs/results.md): `time` (Estimate::time, its estimator named), `median` and its interval (of the
// repetition medians), `spread` (Estimate::spread, in %), `cv` (the typical repetition's cv of its
// blocks, TimingInfo::noise, in %), and the pooled samples' `p90`/`p99` (stats::Summary).

// How the case's time was made and how sure it is across repetitions, for people: `min of 6 reps
// · median 12.31 us [12.10 us, 12.52 us] 97% · spread 3.4%` (the estimator, the repetitions,
// their median with its interval and that interval's coverage, their spread; ` · UNSTABLE` when
// the repetitions disagree past results::k_unstable_ratio);
// `1 rep` when there is nothing across repetitions to say.
std::string estimate_text(const results::Estimate& estimate);

// The case's cv (TimingInfo::noise) for people: "4.2%"; "-" when there is none.
std::string cv_text(const results::CaseResult& r);

// What a case's time measures (results::TimingInfo::measures), and on CUDA its CPU and batch
// times beside it: "GPU time · CPU 8.17 us · batch 7.87 us"; "" for CPU cases.
std::string device_times_text(const results::CaseResult& r);

// One console line for a finished case: `case_id  time (estimate_text)  p90 ..  cv ..  peak ..`.
std::string console_line(const results::CaseResult& result);

} // namespace opbench::report
