#pragma once
// What an operator's kernel returns, checked around its timing (docs/custom-ops.md): a variant
// group's implementation against its baseline (results::OutputCheck), and a loaded library's
// operator against its own schema. Internal to exec/.

#include <functional>
#include <memory>

#include "makers.hpp"
#include "opbench/results/case.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::exec {

// A variant group's implementation held against its baseline before it is timed: both called
// once on the same input values (the k-th tensor argument of one is the k-th of the other), their
// outputs within the dtype's tolerance (output_check.hpp, as a stage is held against eager).
// Throws CheckFailed when they differ, Error when they take different tensors; the
// implementation's own failure propagates as it is. A baseline that fails leaves the check not
// made (OutputCheck::not_made), and the implementation is timed without it.
results::OutputCheck check_before(const results::Case& c);

// The check after the timed blocks: the very tensors `call` was timed on are filled with fresh
// values (another seed, the same shapes and ranges), and what the implementation returns on them
// is held against the baseline's on copies of them; adds to the record.
std::function<void(results::OutputCheck&)> check_after(const results::Case& c,
                                                       std::shared_ptr<PreparedCall> call);

// A loaded library's operator (Case::library set) returns a defined tensor for each `Tensor` its
// schema returns: one call on the case's inputs, which are then put back. Throws Error saying
// which return; nothing for LibTorch's own operators.
void check_returns(const results::Case& c, PreparedCall& call);

} // namespace opbench::exec
