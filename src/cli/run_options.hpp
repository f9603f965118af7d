#pragma once
// `opbench run`'s options: what to plan (the selection, here) and how to run it
// (run::RunSettings, whose defaults are the flags' defaults).

#include <string>
#include <vector>

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

} // namespace opbench::cli
