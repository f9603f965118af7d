#pragma once
// `opbench merge`: result files of one setup (shards of a night, a run's parts) joined into one.
// Refused, naming the field and the files, when they come from different setups (LibTorch build,
// CPU model, host allocator) or were measured differently (results::measuring_differences), or
// when a case is in two of them (docs/hostile-input.md).

#include <string>
#include <utility>
#include <vector>

#include "opbench/results/result_set.hpp"

namespace opbench::results {

// The context fields of the setup that must agree for results to be merged.
const std::vector<std::string>& setup_keys();

// Joins `inputs` (path, its results), in order: the first file's context, with "merged_from"
// listing each file (its host, date and case count). Throws ResultsError naming the file that
// does not fit and why.
ResultSet merge_results(std::vector<std::pair<std::string, ResultSet>> inputs);

} // namespace opbench::results
