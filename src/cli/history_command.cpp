// `opbench history add|show|accept|exclude|include|prune`: the results history (SQLite), one value
// per case per run, the changes accepted as intended and the nights held out of the baselines.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "history_options.hpp"
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
