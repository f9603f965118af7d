// `opbench history show`: the runs of a history, its accepts and exclusions, or one case's trend.
#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "history_options.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/history/history.hpp"

namespace opbench::cli {
namespace {

// A case's series as recorded, with one estimator over all its runs: --estimator, else the
// estimator of its newest run (a history recorded with `min` before 2026-11-25 and
// `fastest-third` since would otherwise step at the switch, and the change points would find it).
std::vector<history::Point> one_estimator(const std::vector<history::Point>& recorded,
                                          const HistoryOptions& options) {
  const std::string estimator = !options.estimator.empty() ? options.estimator
                                : recorded.empty()         ? std::string()
                                                           : recorded.back().estimator;
  return history::restated(recorded, estimator);
}

// The exclusions as a Markdown table (none: nothing).
void write_exclusions(const std::vector<history::Exclusion>& exclusions) {
  if (exclusions.empty())
    return;
  std::cout << "\nHeld out of the baselines (`history exclude`, or the gate for a case it judged "
               "slower; `history include --id` or `history accept` takes one back):\n\n| "
               "exclusion | run | case | by | reason | held out | included again |\n"
               "|---:|---|---|---|---|---|---|\n";
  for (const auto& e : exclusions) {
    std::cout << fmt::format(
        "| {} | {} ({}) | {} | {} | {} | {} | {} |\n", e.id, e.run_id, e.run_date,
        e.case_id.empty() ? std::string("every case")
                          : "`" + core::markdown_code_cell(e.case_id) + "`",
        e.by, core::markdown_cell(e.reason), e.date, e.undone.empty() ? "-" : e.undone);
  }
}

} // namespace

// A trend per case: one line per run with its value and change against the case's first run.
int run_show(const HistoryOptions& options, const GlobalOptions& global) {
  start_command(global);
  const history::History db(db_path(options, global), history::Access::read);
  const std::vector<std::string> ids =
      options.case_id.empty() ? db.case_ids() : std::vector<std::string>{options.case_id};
  if (options.format == "json") {
    Json out = Json::object();
    Json runs = Json::array();
    for (const auto& r : db.runs()) {
      runs.push_back({{"id", r.id},
                      {"date", r.date},
                      {"label", r.label},
                      {"host", r.host},
                      {"source", r.source},
                      {"cases", r.cases}});
    }
    out["runs"] = runs;
    // Each series, where it changed level (the index of the first point of the new level) and where
    // opbench called the case another way.
    Json series = Json::object(), changes = Json::object(), called = Json::object();
    for (const auto& id : ids) {
      const auto recorded = db.series(id);
      const auto points = one_estimator(recorded, options);
      Json values = Json::array(), found = Json::array();
      for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& p = points[i];
        values.push_back(
            {{"run", p.run_id},
             {"date", p.date},
             {"label", p.label},
             {"time", p.time},
             {"estimator", p.estimator},
             {"replicates", p.replicates},
             {"call_path", p.call_path},
             {"peak_bytes", p.memory ? Json(p.memory->peak_bytes) : Json(nullptr)},
             {"total_bytes", p.memory ? Json(p.memory->total_bytes) : Json(nullptr)},
             {"accepted", p.accepted},
             {"excluded", p.excluded},
             {"recorded", {{"time", recorded[i].time}, {"estimator", recorded[i].estimator}}}});
      }
      for (const auto& c : history::change_points(points)) {
        found.push_back({{"index", c.index},
                         {"run", points[c.index].run_id},
                         {"date", points[c.index].date},
                         {"before", c.before},
                         {"after", c.after},
                         {"p_value", c.p_value}});
      }
      Json paths = Json::array();
      for (const auto& c : history::call_path_changes(points)) {
        paths.push_back({{"index", c.index},
                         {"run", points[c.index].run_id},
                         {"date", points[c.index].date},
                         {"before", c.before},
                         {"after", c.after}});
      }
      series[id] = values;
      changes[id] = found;
      called[id] = paths;
    }
    Json accepts = Json::array();
    for (const auto& a : db.accepts(options.case_id)) {
      accepts.push_back({{"id", a.id},
                         {"case_id", a.case_id},
                         {"run", a.run_id},
                         {"run_date", a.run_date},
                         {"reason", a.reason},
                         {"date", a.date},
                         {"undone", a.undone}});
    }
    out["accepts"] = accepts;
    Json exclusions = Json::array();
    for (const auto& e : db.exclusions(options.case_id)) {
      exclusions.push_back({{"id", e.id},
                            {"run", e.run_id},
                            {"run_date", e.run_date},
                            {"case_id", e.case_id},
                            {"reason", e.reason},
                            {"by", e.by},
                            {"date", e.date},
                            {"undone", e.undone}});
    }
    out["exclusions"] = exclusions;
    out["series"] = series;
    out["change_points"] = changes;
    out["call_path_changes"] = called;
    std::cout << out.dump(2) << "\n";
    return k_exit_ok;
  }
  const auto runs = db.runs();
  std::cout << fmt::format("# opbench history: {}\n\n{} run(s), {} case(s)\n", db.path(),
                           runs.size(), db.case_ids().size());
  if (options.case_id.empty()) {
    std::cout << "\n| run | date | label | host | cases | source |\n|---:|---|---|---|---:|---|\n";
    for (const auto& r : runs) {
      std::cout << fmt::format("| {} | {} | {} | {} | {} | {} |\n", r.id, r.date, r.label, r.host,
                               r.cases, r.source);
    }
    const auto accepts = db.accepts();
    if (!accepts.empty()) {
      std::cout << "\nAccepted changes (`history accept`; the gate judges the runs after one "
                   "against its level):\n\n| accept | case | from run | reason | accepted | "
                   "undone |\n|---:|---|---|---|---|---|\n";
      for (const auto& a : accepts) {
        std::cout << fmt::format("| {} | `{}` | {} ({}) | {} | {} | {} |\n", a.id,
                                 core::markdown_code_cell(a.case_id), a.run_id, a.run_date,
                                 core::markdown_cell(a.reason), a.date,
                                 a.undone.empty() ? "-" : a.undone);
      }
    }
    write_exclusions(db.exclusions());
    std::cout << "\n(`opbench history show --case ID` shows one case's trend.)\n";
    return k_exit_ok;
  }
  const auto recorded = db.series(options.case_id);
  if (recorded.empty())
    throw UsageError("no value of case '" + options.case_id + "' in " + db.path());
  const auto points = one_estimator(recorded, options);
  const auto changes = history::change_points(points);
  std::cout << "\n`" << core::markdown_code_cell(options.case_id) << "`\n\nEach run's time: "
            << (points.back().estimator.empty() ? std::string("as recorded")
                                                : "`" + points.back().estimator + "`")
            << " over its repetition medians (`--estimator`; where a run was recorded with "
               "another, the last column "
               "has what it recorded). Peak: the call's peak allocated bytes (exact; `-` where "
               "not probed).\n\n| run | date | label | time | vs first | repetitions | peak | "
               "change point | recorded "
               "|\n|---:|---|---|---:|---:|---:|---:|---|---|\n";
  const auto called = history::call_path_changes(points);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    std::string change;
    for (const auto& c : changes) {
      if (c.index == i)
        change = fmt::format("level ×{:.3f} from here (p {:.1g})", c.after / c.before, c.p_value);
    }
    if (!p.accepted.empty())
      change += fmt::format("{}accepted from here: {}", change.empty() ? "" : "; ",
                            core::markdown_cell(p.accepted));
    if (!p.excluded.empty())
      change += fmt::format("{}held out of the baselines: {}", change.empty() ? "" : "; ",
                            core::markdown_cell(p.excluded));
    for (const auto& c : called) {
      if (c.index == i)
        change += fmt::format("{}called {} from here (was {})", change.empty() ? "" : "; ", c.after,
                              c.before);
    }
    const std::string other =
        recorded[i].estimator == p.estimator
            ? ""
            : fmt::format("{}: {}", recorded[i].estimator.empty() ? "?" : recorded[i].estimator,
                          core::format_duration(recorded[i].time));
    if (p.memory && i > 0 && points[i - 1].memory &&
        points[i - 1].memory->peak_bytes != p.memory->peak_bytes) {
      change += fmt::format("{}peak memory {} from here", change.empty() ? "" : "; ",
                            core::format_bytes(p.memory->peak_bytes));
    }
    std::cout << fmt::format("| {} | {} | {} | {} | {:+.1f}% | {} | {} | {} | {} |\n", p.run_id,
                             p.date, p.label, core::format_duration(p.time),
                             (p.time / points.front().time - 1) * 100, p.replicates.size(),
                             p.memory ? core::format_bytes(p.memory->peak_bytes) : "-", change,
                             other);
  }
  const stats::ChangePointOptions rule;
  std::cout << fmt::format(
      "\n{} change point(s): a level held for {} runs or more on each side (rank test, "
      "p < {} over the splits, {:.0f}% or more).\n",
      changes.size(), rule.min_segment, rule.alpha, rule.effect_floor * 100);
  write_exclusions(db.exclusions(options.case_id));
  return k_exit_ok;
}

std::string db_path(const HistoryOptions& options, const GlobalOptions& global) {
  return options.db.empty() ? results_dir(global) + "/history.sqlite" : options.db;
}

} // namespace opbench::cli
