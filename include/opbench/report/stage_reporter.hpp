#pragma once
// The stage table (LongTail-Bench's central view): one row per case run at more than one stage
// (run --stage), its time at each stage, each stage's speedup over eager, the ATen calls and
// fused kernels behind it, and geometric means of the speedups per tag and overall.

#include <optional>
#include <string>
#include <vector>

#include "opbench/report/reporter.hpp"

namespace opbench::report {

// One stage of one row.
struct StageCell {
  std::string status;                        // "ok", "skipped", "error"; "" when not run
  std::string message;                       // why, when not ok
  double time = 0;                           // seconds per call (see stage_time)
  std::optional<double> speedup;             // eager's time / this time
  std::optional<std::int64_t> aten_calls;    // ATen calls of one call
  std::optional<std::int64_t> fusion_groups; // fused kernels (stages other than eager)
};

struct StageRow {
  std::string case_id; // the eager case id
  std::string name, kind, source, device;
  std::vector<std::string> tags;
  std::vector<StageCell> cells; // one per StageTable::stages
};

// Geometric mean of the speedups of one stage over a group of rows.
struct StageMean {
  std::string group;             // a tag, or "all"
  std::vector<double> speedup;   // per stage (NaN where no row ran it)
  std::vector<std::size_t> rows; // rows behind each
};

struct StageTable {
  std::vector<std::string> stages; // present in the results, in results::stage_names order
  std::vector<StageRow> rows;
  std::vector<StageMean> means; // "all" first, then tags by name
};

// The time a stage table holds for a result: the case's median on the CPU; on CUDA its batch
// time (back-to-back calls), since what stages remove (dispatch, interpreter and launch overhead)
// is hidden from the GPU time of graph replays.
double stage_time(const results::CaseResult& r);

// The table of `set`: rows for every case id that some non-eager stage result shares with its
// eager id (results::eager_case_id), in the order of their first result.
StageTable make_stage_table(const results::ResultSet& set);

// Markdown (`export --format stages`) or CSV (`--format stages-csv`).
class StageReporter final : public Reporter {
public:
  explicit StageReporter(bool csv) : csv_(csv) {}
  void write(const results::ResultSet& set, std::ostream& out) const override;

private:
  bool csv_;
};

} // namespace opbench::report
