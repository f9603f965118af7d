// `opbench run`: parses the flags, plans the selected cases (plan/) and hands them to a run
// (run/run.hpp), printing its progress; the run measures and writes the results.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <set>

#include "commands.hpp"
#include "opbench/catalog/libraries.hpp"
#include "opbench/core/dtype.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/log.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/extract/extract.hpp"
#include "opbench/machine/device_support.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/plan/sources.hpp"
#include "opbench/report/reporter.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/store.hpp"
#include "opbench/run/run.hpp"
#include "run_options.hpp"

namespace opbench::cli {
namespace {

// Prints the run's progress: a line per finished case, a line per note. A child of --processes
// (`process_label` set) prints only how far it is, at most every k_child_progress_s: its parent
// prints the run's lines, one per case once every process measured it.
constexpr double k_child_progress_s = 10;
run::RunObserver console(const std::string& process_label) {
  run::RunObserver observer;
  if (!process_label.empty()) {
    auto last = std::make_shared<double>(0.0);
    observer.started = [](std::size_t, const std::string&) {};
    observer.case_done = [process_label, last](const results::CaseResult&, std::size_t finished,
                                               std::size_t total, double elapsed) {
      if (finished == total || elapsed - *last < k_child_progress_s)
        return;
      *last = elapsed;
      std::cerr << fmt::format("opbench: process {}: {} of {} case(s) measured [{:.1f} s]\n",
                               process_label, finished, total, elapsed);
    };
    observer.note = [](const std::string&) {};
    return observer;
  }
  observer.started = [](std::size_t cases, const std::string& journal) {
    std::cerr << fmt::format("opbench: {} case(s); finished cases go to {} as they finish\n", cases,
                             journal);
  };
  observer.case_done = [](const results::CaseResult& r, std::size_t finished, std::size_t total,
                          double elapsed) {
    std::cerr << fmt::format("[{}/{}] {}  [{:.1f} s]\n", finished, total, report::console_line(r),
                             elapsed);
  };
  observer.note = [](const std::string& line) { std::cerr << "opbench: " << line << "\n"; };
  return observer;
}

int run(RunOptions& options, const GlobalOptions& global) {
  start_command(global);
  run::RunSettings& settings = options.settings;
  settings.exec.memory = !options.no_memory;
  settings.log_level = global.log_level;
  run::Session session(settings); // sets up the host allocator before anything is planned
  const plan::Selection& selection = options.selection;
  const std::vector<results::Case> cases = select_cases(options, global);
  std::vector<std::string> libraries;
  for (const auto& library : catalog::loaded_libraries())
    libraries.push_back(library.path);
  session.use_libraries(std::move(libraries));
  if (cases.empty())
    throw UsageError("no case matches the filters (opbench list shows what can run)");
  if (options.dry_run) {
    for (const auto& c : cases)
      std::cout << c.case_id << "\n";
    std::cerr << fmt::format("{} case(s) planned, all configs bind; nothing was run\n",
                             cases.size());
    return k_exit_ok;
  }
  const std::string output =
      options.output.empty() ? results::default_output_path(results_dir(global)) : options.output;
  if (!selection.from.empty() && core::is_regular_file(output) &&
      core::absolute_path(output) == core::absolute_path(selection.from)) {
    throw UsageError("--output " + output + " is the --from file: this run's " +
                     std::to_string(cases.size()) +
                     " case(s) would replace what it holds; give --output another file");
  }
  const run::RunOutcome outcome =
      session.run(cases, output, global.command_line, console(settings.process_label));
  std::cout << fmt::format("{} case(s): {}; results: {}\n", outcome.cases, outcome.counts.text(),
                           outcome.output);
  // A case that did not run as asked (opbench's error, a compiler's, a timeout) fails the run.
  return outcome.counts.failed() > 0 ? k_exit_case_failed : k_exit_ok;
}

} // namespace

void add_run_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Run benchmark cases and write their results");
  add_selection_flags(*cmd, *options, global);
  add_measuring_flags(*cmd, options->settings);
  cmd->add_flag("--no-memory", options->no_memory, "Skip the untimed memory probe");
  cmd->add_option("--output,-o", options->output,
                  "Result file (default: RESULTS_DIR/run-YYYYMMDD-HHMMSS.json)");
  cmd->add_flag("--dry-run", options->dry_run,
                "Bind every config row and print the planned case ids; run nothing");
  cmd->callback([options, &global] { global.exit_code = run(*options, global); });
}

} // namespace opbench::cli
