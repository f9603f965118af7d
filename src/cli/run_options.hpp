#pragma once
// `opbench run`'s options: what to plan (the selection, here) and how to run it
// (run::RunSettings, whose defaults are the flags' defaults).

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "opbench/plan/select.hpp"
#include "opbench/run/settings.hpp"

namespace opbench::cli {

struct RunOptions {
  plan::Selection selection; // which cases (plan/select.hpp)
  std::vector<int> threads;  // --threads as given (0: LibTorch's default, resolved by the CLI)
  bool no_memory = false;
  bool dry_run = false;
  std::string output; // the result file; "": RESULTS_DIR/run-<UTC date>.json
  run::RunSettings settings;
};

struct GlobalOptions;
// The flags that choose the cases (--ops, --samples, --config, --load-library, --from, --case,
// --shard, the axes...), bound to `options` (selection_flags.cpp): run's and ab's.
void add_selection_flags(CLI::App& command, RunOptions& options, GlobalOptions& global);
// The cases `options` select (plan::select with the config directory, the threads axis and the
// seed in force); throws UsageError for a device this machine lacks.
std::vector<results::Case> select_cases(RunOptions& options, const GlobalOptions& global);

} // namespace opbench::cli
