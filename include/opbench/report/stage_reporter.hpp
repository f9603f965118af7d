#pragma once
// The stage table (LongTail-Bench's central view): one row per case run at more than one stage
// (run --stage), its time at each stage, each stage's speedup over eager, the ATen calls and
// fused kernels behind it, geometric means of the speedups per tag and overall, and what each
// compiled stage costs to make and how many calls pay it back (docs/stages.md, "Compile cost").

#include <optional>
#include <string>
#include <vector>

#include "opbench/report/reporter.hpp"
#include "opbench/results/vocabulary.hpp"

namespace opbench::report {

// One stage of one row.
struct StageCell {
  std::optional<results::Status> status;     // none when the case was not run at this stage
  std::string message;                       // why, when not ok
  double time = 0;                           // seconds per call (see stage_time)
  std::optional<double> speedup;             // eager's time / this time
  std::optional<std::int64_t> aten_calls;    // ATen calls of one call
  std::optional<std::int64_t> fusion_groups; // fused kernels (stages other than eager)
  std::optional<double> compile_time;        // seconds to make the stage (StageInfo)
  // Calls after which the compile time is paid back by what each call saves against eager:
  // compile_time / (eager's time - this time); none when not compiled or when it saves nothing.
  std::optional<double> break_even_calls;

  bool ok() const { return status == results::Status::ok; }
  // The status's name as result files write it; "" when not run.
  std::string status_name() const { return status ? core::name_of(*status) : std::string(); }
};

struct StageRow {
  std::string case_id; // the eager case id
  std::string name, source, device;
  results::Kind kind = results::Kind::op;
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
  std::vector<results::Stage> stages; // present in the results, eager first, in Stage's order
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
