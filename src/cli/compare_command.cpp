// `opbench compare BASE NEW`: is NEW slower than BASE? Exit 1 when some case regressed.
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "opbench/compare/compare.hpp"
#include "opbench/core/error.hpp"
#include "opbench/results/store.hpp"

namespace opbench::cli {
namespace {

struct CompareCommandOptions {
  std::string base;
  std::string candidate;
  compare::CompareOptions compare;
  std::string format = "md";
  std::string output = "-";
};

int run_compare(const CompareCommandOptions& options, const GlobalOptions& global) {
  start_command(global);
  const results::ResultSet base = results::load_results(options.base);
  const results::ResultSet candidate = results::load_results(options.candidate);
  compare::Comparison comparison = compare::compare_results(base, candidate, options.compare);
  comparison.base_path = options.base;
  comparison.new_path = options.candidate;
  std::ostringstream text;
  compare::write_comparison(comparison, options.format, text);
  if (options.output == "-") {
    std::cout << text.str();
  } else {
    results::write_atomically(options.output, text.str());
  }
  std::cerr << "opbench compare: " << comparison.count("slower") << " slower, "
            << comparison.count("faster") << " faster, " << comparison.count("same") << " same, "
            << comparison.count("unknown") << " unknown\n";
  return comparison.regressed() ? k_exit_case_failed : k_exit_ok;
}

}  // namespace

void add_compare_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<CompareCommandOptions>();
  auto* cmd = app.add_subcommand(
      "compare", "Compare two result files case by case; exit 1 when NEW is significantly slower");
  cmd->add_option("base", options->base, "Baseline result file (or journal)")->required()->check(CLI::ExistingFile);
  cmd->add_option("new", options->candidate, "New result file (or journal)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--threshold", options->compare.threshold,
                  "Relative change of the median that counts (0.05 = 5%)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--alpha", options->compare.alpha, "Significance level of the Mann-Whitney U test")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  cmd->add_option("--min-samples", options->compare.min_samples,
                  "Fewer samples than this on either side: verdict unknown")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--format,-f", options->format, "Output format")
      ->check(CLI::IsMember(compare::comparison_formats()))->capture_default_str();
  cmd->add_option("--output,-o", options->output, "Output file; - for stdout")->capture_default_str();
  cmd->callback([options, &global] { global.exit_code = run_compare(*options, global); });
}

}  // namespace opbench::cli
