// `opbench history add|show|accept|prune`: the results history (SQLite), one value per case per
// run, and the changes accepted as intended.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/history/history.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/store.hpp"

namespace opbench::cli {
namespace {

struct HistoryOptions {
  std::string db;
  std::vector<std::string> files;
  std::string label;
  std::string case_id;
  std::string format = "md";
  std::string estimator; // show: one estimator over every series (empty: each series' newest)
  std::size_t keep = 100;
  std::vector<std::string> accept_cases; // accept: the cases whose step is intended
  std::string reason;                    // accept: why
  std::int64_t run = -1;                 // accept: the first run of the new level (-1: newest)
  std::int64_t undo = -1;                // accept --undo ID
};

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

// `RESULTS_DIR/history.sqlite` unless --db says otherwise.
std::string db_path(const HistoryOptions& options, const GlobalOptions& global) {
  return options.db.empty() ? results_dir(global) + "/history.sqlite" : options.db;
}

int run_add(const HistoryOptions& options, const GlobalOptions& global) {
  start_command(global);
  history::History db(db_path(options, global), history::Access::create);
  for (const auto& file : options.files) {
    const results::ResultSet set = results::load_results(file);
    const auto [id, added] = db.add(set, file, options.label);
    std::cout << fmt::format("{}: run {} {}\n", file, id,
                             added ? "added" : "was already in the history");
  }
  return k_exit_ok;
}

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
        std::cout << fmt::format("| {} | `{}` | {} ({}) | {} | {} | {} |\n", a.id, a.case_id,
                                 a.run_id, a.run_date, a.reason, a.date,
                                 a.undone.empty() ? "-" : a.undone);
      }
    }
    std::cout << "\n(`opbench history show --case ID` shows one case's trend.)\n";
    return k_exit_ok;
  }
  const auto recorded = db.series(options.case_id);
  if (recorded.empty())
    throw UsageError("no value of case '" + options.case_id + "' in " + db.path());
  const auto points = one_estimator(recorded, options);
  const auto changes = history::change_points(points);
  std::cout << "\n`" << options.case_id << "`\n\nEach run's time: "
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
      change += fmt::format("{}accepted from here: {}", change.empty() ? "" : "; ", p.accepted);
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
  return k_exit_ok;
}

// `history accept --case ID... --reason TEXT [--run RUN]`, or `--undo ACCEPT`.
int run_accept(const HistoryOptions& options, const GlobalOptions& global) {
  start_command(global);
  history::History db(db_path(options, global), history::Access::update);
  if (options.undo >= 0) {
    if (!options.accept_cases.empty() || !options.reason.empty() || options.run >= 0)
      throw UsageError("history accept --undo ID takes no --case, --reason or --run");
    db.undo_accept(options.undo, core::utc_now());
    std::cout << fmt::format("{}: accept {} undone (kept in the history as undone)\n", db.path(),
                             options.undo);
    return k_exit_ok;
  }
  if (options.accept_cases.empty())
    throw UsageError("history accept needs --case ID (repeatable), or --undo ID");
  const std::string now = core::utc_now();
  for (const auto& id : options.accept_cases) {
    const std::int64_t accept = db.accept(id, options.run, options.reason, now);
    for (const auto& a : db.accepts(id)) {
      if (a.id == accept) {
        std::cout << fmt::format("accept {}: `{}` from run {} ({}) on: {}\n", a.id, a.case_id,
                                 a.run_id, a.run_date, a.reason);
      }
    }
  }
  return k_exit_ok;
}

int run_prune(const HistoryOptions& options, const GlobalOptions& global) {
  start_command(global);
  history::History db(db_path(options, global), history::Access::update);
  const std::size_t deleted = db.prune(options.keep);
  std::cout << fmt::format("{}: deleted {} run(s), kept the newest {}\n", db.path(), deleted,
                           options.keep);
  return k_exit_ok;
}

} // namespace

void add_history_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<HistoryOptions>();
  auto* cmd = app.add_subcommand(
      "history", "The results history (SQLite): add runs, show trends, accept a change, prune");
  cmd->require_subcommand(1);
  auto db_option = [&](CLI::App* sub) {
    sub->add_option("--db", options->db, "History file (default: RESULTS_DIR/history.sqlite)");
  };
  auto* add = cmd->add_subcommand(
      "add", "Add result files to the history (adding one twice changes nothing)");
  db_option(add);
  add->add_option("results", options->files, "Result files (or journals)")
      ->required()
      ->check(CLI::ExistingFile);
  add->add_option("--label", options->label,
                  "Name of the run, e.g. a commit (default: the LibTorch version)");
  add->callback([options, &global] { global.exit_code = run_add(*options, global); });
  auto* show = cmd->add_subcommand("show", "List the runs, or one case's trend over them");
  db_option(show);
  show->add_option("--case", options->case_id, "The case whose trend to show");
  show->add_option("--format,-f", options->format, "md or json")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str();
  show->add_option("--estimator", options->estimator,
                   "Make every run's time with this estimator from its repetition medians "
                   "(default: the estimator "
                   "of the case's newest run)")
      ->check(CLI::IsMember(results::estimator_names()));
  show->callback([options, &global] { global.exit_code = run_show(*options, global); });
  auto* accept = cmd->add_subcommand(
      "accept", "Record that a case's step is intended: the gate judges later runs against its "
                "new level at once (undo with --undo ID; nothing is deleted)");
  db_option(accept);
  accept->add_option("--case", options->accept_cases,
                     "The case whose step is intended (repeatable)");
  accept->add_option("--reason", options->reason, "Why the change is intended (e.g. the commit)");
  accept->add_option("--run", options->run,
                     "The first run of the new level (`history show` lists them; default: the "
                     "case's newest run)");
  accept->add_option("--undo", options->undo,
                     "Undo this accept (its id, from `history show`); it stays in the history, "
                     "marked undone");
  accept->callback([options, &global] { global.exit_code = run_accept(*options, global); });
  auto* prune = cmd->add_subcommand("prune", "Delete all but the newest runs");
  db_option(prune);
  prune->add_option("--keep", options->keep, "Runs to keep")
      ->check(in_range(limits::runs_kept))
      ->capture_default_str();
  prune->callback([options, &global] { global.exit_code = run_prune(*options, global); });
}

} // namespace opbench::cli
