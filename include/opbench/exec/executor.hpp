#pragma once
// Runs one planned case: inputs, warmup, timed blocks, memory probe (one driver for every kind
// of case: measure/workload.hpp; the makers: src/exec/makers.hpp). Never throws for a failure
// inside the case: it becomes a result with status "error" (or "skipped") and its message.

#include <cstdint>
#include <string>

#include "opbench/measure/call_recorder.hpp"
#include "opbench/measure/options.hpp"
#include "opbench/results/case.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::exec {

// Bytes of the padding allocation made before repetition `repetition` of a case seeded `seed`.
std::int64_t placement_padding(std::uint64_t seed, int repetition);

results::CaseResult run_case(const results::Case& c, const measure::ExecOptions& options);

// The top-level ATen calls of one untimed call of `c`, its inputs made as run_case makes them
// (from its seed): what a sample or an operator case calls, for `opbench extract --sample`.
// Throws (measure::SkipCase, Error, LibTorch's errors) when the case cannot be made or run.
measure::Recording record_case(const results::Case& c, const measure::RecordOptions& options = {});

} // namespace opbench::exec
