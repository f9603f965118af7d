// `opbench history add|show|accept|exclude|include|prune`: the results history (SQLite), one value
// per case per run, the changes accepted as intended and the nights held out of the baselines.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/gate/gate.hpp"
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
  // accept: the first run of the new level (none: the case's newest); exclude: the run
  std::optional<std::int64_t> run;
  std::int64_t undo = -1;                 // accept --undo ID
  std::string gate;                       // add --gate: the night's gate report (JSON)
  std::vector<std::string> exclude_cases; // exclude/include: these cases' values (none: the night)
  std::int64_t id = -1;                   // include --id
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
  // The gate's report is read before anything is added: a report that is none adds nothing.
  std::vector<std::pair<std::string, std::string>> slower;
  if (!options.gate.empty()) {
    if (options.files.size() != 1)
      throw UsageError("history add --gate REPORT takes the one night it judged");
    std::string error;
    const auto report = core::parse_json(core::read_file(options.gate), &error);
    if (!report)
      throw ResultsError(options.gate + ": " + error);
    slower = gate::slower_cases(*report, options.gate);
  }
  history::History db(db_path(options, global), history::Access::create);
  for (const auto& file : options.files) {
    const results::ResultSet set = results::load_results(file);
    const auto [id, added] = db.add(set, file, options.label);
    std::cout << fmt::format("{}: run {} {}\n", file, id,
                             added ? "added" : "was already in the history");
    const std::string date = set.context.value("date", std::string());
    for (const auto& [case_id, moved] : slower) {
      const std::int64_t held = db.exclude(
          id, case_id,
          fmt::format("the gate judged it slower ({}) on {}: held out until accepted or fixed",
                      moved, date),
          "gate", core::utc_now());
      std::cout << fmt::format("exclusion {}: `{}` of run {} held out of the baselines (judged "
                               "slower, {})\n",
                               held, case_id, id, moved);
    }
  }
  return k_exit_ok;
}

// `history exclude --run RUN [--case ID...] --reason TEXT`: a night, or cases' values in it, out
// of every baseline.
int run_exclude(const HistoryOptions& options, const GlobalOptions& global) {
  start_command(global);
  if (!options.run || *options.run < 1)
    throw UsageError("history exclude needs --run RUN, a run's id (`opbench history show` lists "
                     "the runs)");
  history::History db(db_path(options, global), history::Access::update);
  const std::string now = core::utc_now();
  const std::vector<std::string> cases =
      options.exclude_cases.empty() ? std::vector<std::string>{""} : options.exclude_cases;
  for (const auto& case_id : cases) {
    const std::int64_t id = db.exclude(*options.run, case_id, options.reason, "user", now);
    std::cout << fmt::format("exclusion {}: {} of run {} held out of the baselines: {}\n", id,
                             case_id.empty() ? "every case" : "`" + case_id + "`", *options.run,
                             core::trim(options.reason));
  }
  return k_exit_ok;
}

// `history include --id EXCLUSION`: back into the baselines.
int run_include(const HistoryOptions& options, const GlobalOptions& global) {
  start_command(global);
  if (options.id < 1)
    throw UsageError("history include needs --id EXCLUSION (`opbench history show` lists them)");
  history::History db(db_path(options, global), history::Access::update);
  db.include(options.id, core::utc_now());
  std::cout << fmt::format("{}: exclusion {} included again (kept in the history as undone)\n",
                           db.path(), options.id);
  return k_exit_ok;
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

// `history accept --case ID... --reason TEXT [--run RUN]`, or `--undo ACCEPT`.
int run_accept(const HistoryOptions& options, const GlobalOptions& global) {
  start_command(global);
  history::History db(db_path(options, global), history::Access::update);
  if (options.undo >= 0) {
    if (!options.accept_cases.empty() || !options.reason.empty() || options.run)
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
    if (options.run && *options.run < 1)
      throw UsageError("history accept: --run must be a run's id (`opbench history show` lists "
                       "them)");
    const std::int64_t accept = db.accept(id, options.run.value_or(-1), options.reason, now);
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
      "history", "The results history (SQLite): add runs, show trends, accept a change, hold out "
                 "a night, prune");
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
  add->add_option("--gate", options->gate,
                  "The night's gate report (compare --history --format json): each case it "
                  "judged slower is held out of the baselines until accepted (history accept) or "
                  "included again (history include)")
      ->check(CLI::ExistingFile);
  add->callback([options, &global] { global.exit_code = run_add(*options, global); });
  auto* exclude = cmd->add_subcommand(
      "exclude", "Hold a night, or cases' values in it, out of every baseline the gate makes "
                 "(kept in the history; history include takes it back)");
  db_option(exclude);
  exclude->add_option("--run", options->run, "The run (`history show` lists them)")->required();
  exclude->add_option("--case", options->exclude_cases,
                      "Only this case's value (repeatable; default: the whole night)");
  exclude->add_option("--reason", options->reason, "Why (shown in history show and the gate)")
      ->required();
  exclude->callback([options, &global] { global.exit_code = run_exclude(*options, global); });
  auto* include = cmd->add_subcommand(
      "include", "Take an exclusion back: its night or value is part of the baselines again");
  db_option(include);
  include->add_option("--id", options->id, "The exclusion (`history show` lists them)")->required();
  include->callback([options, &global] { global.exit_code = run_include(*options, global); });
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
