#pragma once
// A case's computation as a function of its inputs, apart from executor.hpp so that what runs
// cases without LibTorch's headers (run/) does not include them.

#include "opbench/results/case.hpp"
#include "opbench/stages/stages.hpp"

namespace opbench::exec {

// The forward computation of `c` (a sample or an operator case) on its inputs, made from its seed
// on its device as run_case makes them: what a replay (replay/replay.hpp) calls at each size.
// Throws measure::SkipCase for a model case, and what making the inputs throws.
stages::TensorFunction case_function(const results::Case& c);

} // namespace opbench::exec
