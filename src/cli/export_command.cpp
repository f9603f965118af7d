// `opbench export`: stored results to csv, md or json; never re-runs anything.
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "opbench/core/error.hpp"
#include "opbench/report/reporter.hpp"
#include "opbench/results/store.hpp"

namespace opbench::cli {
namespace {

struct ExportOptions {
  std::string input;
  std::string format;
  std::string output = "-";
  bool aggregates_only = false;
};

int export_results(const ExportOptions& options, const GlobalOptions& global) {
  start_command(global);
  const auto reporter = report::make_reporter(options.format, options.aggregates_only);
  const std::string input = options.input.empty() ? results::latest_result(results_dir(global)) : options.input;
  const results::ResultSet set = results::load_results(input);
  if (options.output == "-") {
    reporter->write(set, std::cout);
    return 0;
  }
  std::ostringstream text;
  reporter->write(set, text);
  results::write_atomically(options.output, text.str());
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<ExportOptions>();
  auto* cmd = app.add_subcommand("export", "Turn stored results into csv, md, json or gbench (google/benchmark JSON)");
  cmd->add_option("--input,-i", options->input,
                  "Result file or journal (default: the most recent in the results directory)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--format,-f", options->format, "Output format")
      ->required()
      ->check(CLI::IsMember(report::reporter_formats()));
  cmd->add_option("--output,-o", options->output, "Output file; - for stdout")->capture_default_str();
  cmd->add_flag("--aggregates-only", options->aggregates_only,
                "gbench: only the mean/median/stddev/cv aggregates, no per-sample entries");
  cmd->callback([options, &global] { global.exit_code = export_results(*options, global); });
}

}  // namespace opbench::cli
