#pragma once
// Executor options that time a case in a few milliseconds: enough for checks of what a result
// holds, never for figures.
#include "opbench/measure/options.hpp"

namespace opbench::measure {

inline ExecOptions quick_exec_options(int min_runs = 3) {
  ExecOptions options;
  options.measure.warmup = 1;
  options.measure.min_runs = min_runs;
  options.measure.min_time = 0;
  options.measure.max_time = 0.05;
  options.measure.block_time = 1e-4;
  return options;
}

} // namespace opbench::measure
