#pragma once
// The parts of two runs' setups that change what a case's time means: the LibTorch and its
// build, the CPU, the logical cores, LibTorch's default threads, the host allocator, how the run
// was split (processes, repetitions, isolate). A ratio across such a change is the setup's as much
// as the code's. `compare` (two files) and `ab` (its two sides) say so beside their verdicts; an
// A/B of two LibTorch builds differs on purpose and says so too. docs/nightly.md, "compare".

#include <string>

#include "opbench/core/json.hpp"

namespace opbench::results {

// "the two <what>' setups differ (host allocator: A in BASE, B in NEW; ...): a ratio is the
// setup's change as much as the code's", naming each differing key of the two run contexts
// (long texts by name only); "" when none differs or a context is not an object. A key only one
// side records is not compared (older files lack some).
std::string setup_difference(const Json& base_context, const Json& new_context,
                             const std::string& what = "runs");

} // namespace opbench::results
