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

// How two results' contexts differ in the way they were measured: the settings record
// ("measuring", run/settings.hpp's measuring_json: each of its fields) and the keys older files
// carry at the top (seed, repetitions, estimator, processes, interleave, isolate). One entry per
// difference, "processes 3 vs 1" (a's value first); empty when they were measured alike. A file
// with no record of a setting differs only from one that has it.
std::vector<std::string> measuring_differences(const Json& a, const Json& b);

// The context fields of the setup that must agree for results to be merged.
const std::vector<std::string>& setup_keys();

// Joins `inputs` (path, its results), in order: the first file's context, with "merged_from"
// listing each file (its host, date and case count). Throws ResultsError naming the file that
// does not fit and why.
ResultSet merge_results(std::vector<std::pair<std::string, ResultSet>> inputs);

} // namespace opbench::results
