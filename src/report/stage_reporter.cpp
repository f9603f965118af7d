#include "opbench/report/stage_reporter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "opbench/core/csv_field.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::report {
namespace {

using stats::k_nan;

double geometric_mean(const std::vector<double>& values) {
  if (values.empty())
    return k_nan;
  double sum = 0;
  for (double v : values)
    sum += std::log(v);
  return std::exp(sum / static_cast<double>(values.size()));
}

StageMean mean_of(const std::string& group, const StageTable& table,
                  const std::vector<const StageRow*>& rows) {
  StageMean mean;
  mean.group = group;
  for (std::size_t s = 0; s < table.stages.size(); ++s) {
    std::vector<double> speedups;
    for (const StageRow* row : rows) {
      if (row->cells[s].speedup)
        speedups.push_back(*row->cells[s].speedup);
    }
    mean.speedup.push_back(s == 0 ? (speedups.empty() ? k_nan : 1.0) : geometric_mean(speedups));
    mean.rows.push_back(speedups.size());
  }
  return mean;
}

bool ran_every_stage(const StageRow& row) {
  return std::all_of(row.cells.begin(), row.cells.end(), [](const StageCell& c) { return c.ok(); });
}

std::string speedup_text(const std::optional<double>& s) {
  return s ? fmt::format("{:.2f}×", *s) : "—";
}

std::string mean_text(double value, std::size_t rows) {
  return std::isnan(value) ? "—" : fmt::format("{:.2f}× ({})", value, rows);
}

std::string count_text(const std::optional<std::int64_t>& v) {
  return v ? std::to_string(*v) : "-";
}

// "tag1 tag2" for the table (tags can be many; the first three and a count).
std::string tags_text(const std::vector<std::string>& tags) {
  if (tags.size() <= 3)
    return core::join(tags, " ");
  return core::join(std::vector<std::string>(tags.begin(), tags.begin() + 3), " ") +
         fmt::format(" +{}", tags.size() - 3);
}

// The case id without its name: the arguments, dtype, device and threads that tell rows apart.
std::string case_text(const StageRow& row) {
  const std::string prefix = row.name + "/";
  std::string rest =
      core::starts_with(row.case_id, prefix) ? row.case_id.substr(prefix.size()) : row.case_id;
  const std::string forward = "/forward";
  if (core::ends_with(rest, forward))
    rest.resize(rest.size() - forward.size());
  return rest;
}

std::string compile_text(const StageCell& cell) {
  if (!cell.ok() || !cell.compile_time)
    return "—";
  return core::format_duration(*cell.compile_time);
}

std::string break_even_text(const StageCell& cell) {
  if (!cell.ok() || !cell.compile_time)
    return "—";
  return cell.break_even_calls ? fmt::format("{:.0f}", std::ceil(*cell.break_even_calls)) : "never";
}

// The compiled stages' cost: per row, each stage's compile time and break-even calls; then, per
// name, how many sizes the fixed-shape inductor stage compiled a package for, and their time.
void write_compile_cost(const StageTable& table, std::ostream& out) {
  std::vector<std::size_t> compiled;
  for (std::size_t s = 1; s < table.stages.size(); ++s) {
    const bool any = std::any_of(table.rows.begin(), table.rows.end(), [s](const StageRow& row) {
      return row.cells[s].ok() && row.cells[s].compile_time;
    });
    if (any)
      compiled.push_back(s);
  }
  if (compiled.empty())
    return;
  out << "\n## Compile cost\n\nTime to make each stage from the eager computation (once per input "
         "shape: a fixed-shape stage is made again for every size; script-dynamic: its one trace, "
         "then the executor's profiling and optimizing calls at this size), and the calls after "
         "which it "
         "has paid for itself: its compile time over the time it saves a call against eager "
         "(never: it saves none); a package loaded from the cache counts the time it took to "
         "make.\n\n| case | |";
  for (std::size_t s : compiled)
    out << " " << core::name_of(table.stages[s]) << " | break-even calls |";
  out << "\n|---|---|";
  for (std::size_t i = 0; i < compiled.size(); ++i)
    out << "---:|---:|";
  out << "\n";
  for (const StageRow& row : table.rows) {
    out << "| " << row.name << " | `" << case_text(row) << "` |";
    for (std::size_t s : compiled)
      out << " " << compile_text(row.cells[s]) << " | " << break_even_text(row.cells[s]) << " |";
    out << "\n";
  }
  // Packages: the fixed-shape stage makes one per size, the dynamic one one for every size.
  struct Made {
    int sizes = 0;
    double seconds = 0;
  };
  std::map<std::pair<std::string, results::Stage>, Made> packages;
  for (const results::Stage stage : {results::Stage::inductor, results::Stage::inductor_dynamic}) {
    const auto at = std::find(table.stages.begin(), table.stages.end(), stage);
    if (at == table.stages.end())
      continue;
    const auto s = static_cast<std::size_t>(at - table.stages.begin());
    for (const StageRow& row : table.rows) {
      const StageCell& cell = row.cells[s];
      if (!cell.ok() || !cell.compile_time)
        continue;
      Made& made = packages[{row.name, stage}];
      ++made.sizes;
      made.seconds = stage == results::Stage::inductor ? made.seconds + *cell.compile_time
                                                       : std::max(made.seconds, *cell.compile_time);
    }
  }
  if (packages.empty())
    return;
  out << "\nPackages: `inductor` compiles one for each size, `inductor-dynamic` one for all "
         "the sizes it serves:\n\n| name | stage | sizes run | packages | their compile time |\n"
         "|---|---|---:|---:|---:|\n";
  for (const auto& [key, made] : packages) {
    const bool fixed = key.second == results::Stage::inductor;
    out << "| " << key.first << " | " << core::name_of(key.second) << " | " << made.sizes << " | "
        << (fixed ? made.sizes : 1) << " | " << core::format_duration(made.seconds) << " |\n";
  }
}

void write_markdown(const StageTable& table, std::ostream& out) {
  out << "# Stages\n\n";
  if (table.rows.empty()) {
    out << "No case ran at a stage other than eager (`opbench run --stage eager,script,fused`).\n";
    return;
  }
  out << "Time per call at each stage (on the CPU the case's time, its estimator over the "
         "repetition medians; on CUDA the batch time of back-to-back calls) and its speedup "
         "over eager; ATen calls of one call per stage; fused kernels of the fused stage. "
         "— : not run, skipped or failed (reasons below). LongTail-Bench's stages: S1 eager, S2 "
         "script, S3 fused or inductor (fixed shapes), S4 script-dynamic (one trace of a sample "
         "run by one TorchScript function at every size, its fuser in dynamic-shape mode), S5 "
         "inductor-dynamic (one Inductor package for every size).\n\n";
  out << "| case | | tags |";
  for (const auto& stage : table.stages)
    out << " " << core::name_of(stage) << " |" << (stage == results::Stage::eager ? "" : " × |");
  out << " ATen calls | fused kernels |\n|---|---|---|";
  for (const auto& stage : table.stages)
    out << "---:|" << (stage == results::Stage::eager ? "" : "---:|");
  out << "---|---:|\n";
  const auto fused = std::find(table.stages.begin(), table.stages.end(), results::Stage::fused);
  for (const StageRow& row : table.rows) {
    out << "| " << row.name << " | `" << case_text(row) << "` | " << tags_text(row.tags) << " |";
    std::vector<std::string> calls;
    for (std::size_t s = 0; s < table.stages.size(); ++s) {
      const StageCell& cell = row.cells[s];
      out << " " << (cell.ok() ? core::format_duration(cell.time) : "—") << " |";
      if (s > 0)
        out << " " << speedup_text(cell.speedup) << " |";
      calls.push_back(cell.ok() ? count_text(cell.aten_calls) : "—");
    }
    out << " " << core::join(calls, " / ") << " |";
    if (fused != table.stages.end()) {
      const StageCell& cell = row.cells[static_cast<std::size_t>(fused - table.stages.begin())];
      out << " " << (cell.ok() ? count_text(cell.fusion_groups) : "—") << " |\n";
    } else {
      out << " - |\n";
    }
  }
  out << "\n## Geometric mean of the speedup over eager (rows)\n\n| group |";
  for (std::size_t s = 1; s < table.stages.size(); ++s)
    out << " " << core::name_of(table.stages[s]) << " |";
  out << "\n|---|";
  for (std::size_t s = 1; s < table.stages.size(); ++s)
    out << "---:|";
  out << "\n";
  for (const StageMean& mean : table.means) {
    out << "| " << mean.group << " |";
    for (std::size_t s = 1; s < table.stages.size(); ++s)
      out << " " << mean_text(mean.speedup[s], mean.rows[s]) << " |";
    out << "\n";
  }
  write_compile_cost(table, out);
  // Why cells are empty, one line per distinct reason.
  std::map<std::string, std::vector<std::string>> reasons;
  for (const StageRow& row : table.rows) {
    for (std::size_t s = 0; s < table.stages.size(); ++s) {
      const StageCell& cell = row.cells[s];
      if (!cell.status || cell.ok())
        continue;
      // A compiler's failure names the file with its whole text, one per case: the reasons
      // are grouped without it (the result of each case names its file).
      std::string reason = core::first_line(cell.message);
      const std::string file = " (its whole text: ";
      if (const auto at = reason.rfind(file); at != std::string::npos && reason.back() == ')')
        reason.resize(at);
      reasons[core::name_of(table.stages[s]) + " " + cell.status_name() + ": " + reason].push_back(
          row.case_id);
    }
  }
  if (!reasons.empty()) {
    out << "\n## Cells not run\n\n";
    for (const auto& [reason, ids] : reasons) {
      out << "- " << reason << " — " << ids.size() << " row(s), e.g. `" << ids.front() << "`\n";
    }
  }
}

void write_csv(const StageTable& table, std::ostream& out) {
  out << "case_id,name,kind,tags,source,device";
  for (const auto& stage : table.stages) {
    out << fmt::format(
        ",{0}_status,{0}_time_s,{0}_speedup,{0}_aten_calls,{0}_fusion_groups,{0}_compile_s,"
        "{0}_break_even_calls,{0}_message",
        core::name_of(stage));
  }
  out << "\n";
  for (const StageRow& row : table.rows) {
    out << core::csv_field(row.case_id) << ',' << core::csv_field(row.name) << ','
        << core::name_of(row.kind) << ',' << core::csv_field(core::join(row.tags, " ")) << ','
        << core::csv_field(row.source) << ',' << row.device;
    for (const StageCell& cell : row.cells) {
      const bool ok = cell.ok();
      out << ',' << cell.status_name() << ',' << (ok ? fmt::format("{:.9g}", cell.time) : "") << ','
          << (cell.speedup ? fmt::format("{:.4f}", *cell.speedup) : "") << ','
          << (ok && cell.aten_calls ? std::to_string(*cell.aten_calls) : "") << ','
          << (ok && cell.fusion_groups ? std::to_string(*cell.fusion_groups) : "") << ','
          << (ok && cell.compile_time ? fmt::format("{:.6g}", *cell.compile_time) : "") << ','
          << (cell.break_even_calls ? fmt::format("{:.0f}", std::ceil(*cell.break_even_calls)) : "")
          << ',' << core::csv_field(ok ? "" : core::first_line(cell.message));
    }
    out << "\n";
  }
}

} // namespace

double stage_time(const results::CaseResult& r) {
  if (!r.timing.batch_times.empty())
    return stats::median(r.timing.batch_times);
  return r.estimate.time;
}

StageTable make_stage_table(const results::ResultSet& set) {
  StageTable table;
  std::set<results::Stage> present{results::Stage::eager};
  std::set<std::string> staged;
  for (const auto& r : set.cases) {
    present.insert(r.c.stage);
    if (r.c.stage != results::Stage::eager)
      staged.insert(results::eager_case_id(r.c));
  }
  table.stages.assign(present.begin(), present.end()); // std::set keeps Stage's order
  std::map<std::string, std::size_t> row_of;
  for (const auto& r : set.cases) {
    const std::string id = results::eager_case_id(r.c);
    if (staged.count(id) == 0)
      continue;
    auto [it, added] = row_of.emplace(id, table.rows.size());
    if (added) {
      StageRow row;
      row.case_id = id;
      row.name = r.c.name;
      row.kind = r.c.kind;
      row.source = r.c.source;
      row.device = r.c.device;
      row.tags = r.c.tags;
      row.cells.resize(table.stages.size());
      table.rows.push_back(std::move(row));
    }
    const auto s = static_cast<std::size_t>(
        std::find(table.stages.begin(), table.stages.end(), r.c.stage) - table.stages.begin());
    StageCell& cell = table.rows[it->second].cells[s];
    cell.status = r.status;
    cell.message = r.message;
    if (r.status == results::Status::ok) {
      cell.time = stage_time(r);
      cell.aten_calls = r.work.aten_calls;
      if (r.stage_info) {
        cell.fusion_groups = r.stage_info->fusion_groups;
        cell.compile_time = r.stage_info->compile_time;
      }
    }
  }
  for (StageRow& row : table.rows) {
    const StageCell& eager = row.cells[0];
    for (StageCell& cell : row.cells) {
      if (eager.ok() && cell.ok() && eager.time > 0 && cell.time > 0) {
        cell.speedup = eager.time / cell.time;
        if (cell.compile_time && cell.time < eager.time)
          cell.break_even_calls = *cell.compile_time / (eager.time - cell.time);
      }
    }
  }
  std::vector<const StageRow*> all, every;
  std::map<std::string, std::vector<const StageRow*>> by_tag;
  for (const StageRow& row : table.rows) {
    all.push_back(&row);
    if (ran_every_stage(row))
      every.push_back(&row);
    for (const auto& tag : row.tags)
      by_tag[tag].push_back(&row);
  }
  if (!table.rows.empty()) {
    table.means.push_back(mean_of("all", table, all));
    table.means.push_back(mean_of("rows that ran every stage", table, every));
    for (const auto& [tag, rows] : by_tag)
      table.means.push_back(mean_of(tag, table, rows));
  }
  return table;
}

void StageReporter::write(const results::ResultSet& set, std::ostream& out) const {
  const StageTable table = make_stage_table(set);
  if (csv_)
    write_csv(table, out);
  else
    write_markdown(table, out);
}

} // namespace opbench::report
