// `opbench export`: stored results to csv, md, json, gbench, breakdown, html, the stage table or
// the variants' speedups;
// never re-runs anything. html alone takes --compare (a base file) and --history (a results
// history).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "opbench/ab/ab.hpp"
#include "opbench/compare/compare.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/history/history.hpp"
#include "opbench/report/html_reporter.hpp"
#include "opbench/report/reporter.hpp"
#include "opbench/results/store.hpp"

namespace opbench::cli {
namespace {

struct ExportOptions {
  std::string input;
  std::string format;
  std::string output = "-";
  bool aggregates_only = false;
  std::string side;         // an A/B file's side, as a result set of its own
  std::string compare_base; // html: --compare
  std::string history;      // html: --history
};

// The HTML report with its extras: the comparison against --compare, the trends from --history
// (this run's value added last when the history does not hold it yet).
std::string html_report(const ExportOptions& options, const results::ResultSet& set) {
  report::HtmlExtras extras;
  results::ResultSet base;
  compare::Comparison comparison;
  if (!options.compare_base.empty()) {
    base = results::load_results(options.compare_base);
    comparison = compare::compare_results(base, set, compare::CompareOptions{});
    comparison.base_path = options.compare_base;
    extras.comparison = &comparison;
  }
  if (!options.history.empty()) {
    if (!core::path_exists(options.history)) {
      throw UsageError(options.history +
                       ": no results history there (make one with `opbench history add`)");
    }
    const history::History db(options.history, history::Access::read);
    const bool stored = db.find(set) >= 0;
    for (const auto& r : set.cases) {
      // One estimator over the trend, this run's: a night recorded with another would shift.
      auto points =
          history::restated(db.series(r.c.case_id, 60, -1, "", core::name_of(r.timing.measures)),
                            r.estimate.estimator);
      if (!stored && r.status == results::Status::ok) {
        history::Point now;
        now.date = set.context.value("date", std::string());
        now.label = "this run";
        now.time = r.estimate.time;
        now.estimator = r.estimate.estimator;
        now.call_path = core::name_of(r.timing.call_path);
        points.push_back(now);
      }
      if (!points.empty())
        extras.trends.emplace(r.c.case_id, std::move(points));
    }
    extras.history_path = options.history;
  }
  if (options.output != "-") {
    const std::string dir = core::parent_path(options.output);
    extras.report_dir = core::absolute_path(dir.empty() ? "." : dir);
  }
  std::ostringstream text;
  report::HtmlReporter(std::move(extras)).write(set, text);
  return text.str();
}

// Whether `path` is an A/B file of `opbench ab` (its "kind").
bool is_ab_file(const std::string& path) {
  try {
    const std::optional<Json> json = core::parse_json(core::read_file(path));
    return json && json->is_object() && json->value("kind", Json()) == "opbench-ab";
  } catch (const std::exception&) {
    return false; // load_results says what is wrong with it
  }
}

// An A/B file in md, csv, json, junit or html (ab/ab.hpp's views; the verdicts judged again from
// its times), or one side of it (--side) in any format of a run's results.
int export_ab(const ExportOptions& options, const std::string& input) {
  const std::vector<std::string> formats = core::format_names(ab::ab_formats());
  const ab::AbResult result = ab::load_ab(input);
  std::ostringstream out;
  if (!options.side.empty()) {
    report::write_report(options.format, ab::side_results(result, options.side, input), out,
                         options.aggregates_only);
  } else if (std::find(formats.begin(), formats.end(), options.format) != formats.end()) {
    core::write_as(ab::ab_formats(), options.format, result, out);
  } else {
    throw UsageError(input +
                     " is an A/B file of `opbench ab`: it exports as md, csv, json, junit or "
                     "html, or one side at a time (--side base|new) as " +
                     options.format);
  }
  if (options.output == "-")
    std::cout << out.str();
  else
    core::write_atomically(options.output, out.str());
  return 0;
}

int export_results(const ExportOptions& options, const GlobalOptions& global) {
  start_command(global);
  if (options.format != "html" && (!options.compare_base.empty() || !options.history.empty())) {
    throw UsageError("--compare and --history go with --format html");
  }
  const std::string input =
      options.input.empty() ? results::latest_result(results_dir(global)) : options.input;
  if (core::ends_with(input, ".json") && is_ab_file(input))
    return export_ab(options, input);
  if (!options.side.empty())
    throw UsageError("--side goes with an A/B file of `opbench ab`; " + input + " is none");
  const results::ResultSet set = results::load_results(input);
  std::string text;
  if (options.format == "html") {
    text = html_report(options, set);
  } else {
    std::ostringstream out;
    report::write_report(options.format, set, out, options.aggregates_only);
    text = out.str();
  }
  if (options.output == "-")
    std::cout << text;
  else
    core::write_atomically(options.output, text);
  return 0;
}

} // namespace

void add_export_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<ExportOptions>();
  auto* cmd = app.add_subcommand("export",
                                 "Turn stored results into csv, md, json, gbench (google/benchmark "
                                 "JSON), breakdown, html (one self-contained page with charts) or "
                                 "stages / stages-csv (the stage table of run --stage) or variants "
                                 "(implementations side by side: speedups over the baseline)");
  cmd->add_option("--input,-i", options->input,
                  "Result file or journal (default: the most recent in the results directory)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--format,-f", options->format, "Output format")
      ->required()
      ->check(CLI::IsMember(core::format_names(report::reporter_formats())));
  cmd->add_option("--output,-o", options->output, "Output file; - for stdout")
      ->capture_default_str();
  cmd->add_option("--compare", options->compare_base,
                  "html: a base result file; the report shows every case's ratio against it")
      ->check(CLI::ExistingFile);
  cmd->add_option("--history", options->history,
                  "html: a results history (opbench history); the report shows each case's trend");
  cmd->add_option("--side", options->side,
                  "An A/B file's side (base or new) as a run's results: one repetition per round "
                  "(for compare.py or Bencher: both sides measured in the same hour)")
      ->check(CLI::IsMember({"base", "new"}));
  cmd->add_flag("--aggregates-only", options->aggregates_only,
                "gbench: only the mean/median/stddev/cv aggregates, no per-sample entries");
  cmd->callback([options, &global] { global.exit_code = export_results(*options, global); });
}

} // namespace opbench::cli
