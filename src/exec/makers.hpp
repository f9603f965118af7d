#pragma once
// The makers of exec/: a planned case into its measure::Workload (an operator's call on its
// prepared arguments, a sample, a model, their gradients and training steps, a compiled stage
// through stages/), and what an operator call writes and must be put back before each call.

#include <vector>

#include "opbench/exec/inputs.hpp"
#include "opbench/measure/workload.hpp"
#include "opbench/results/case.hpp"
#include "opbench/stages/stages.hpp"

namespace opbench::exec {

// An argument the call's schema marks written (`Tensor(a!) self`, `Tensor(a!)[] self`,
// `Tensor(a!)? running_mean`, out= ones too), with its defined tensors (at least one), in schema
// order. `argument` points into the call's schema.
struct WrittenArgument {
  const c10::Argument* argument;
  std::vector<at::Tensor> tensors;
};
std::vector<WrittenArgument> written_arguments(const PreparedCall& call);

// The Restore of an operator call: every argument its schema marks written (`Tensor(a!) self`,
// `Tensor(a!)[] self`, `Tensor(a!)? running_mean`) but the out= ones, which a call overwrites
// without reading, cloned now and copied back by `run` (on CUDA on the current stream).
measure::Restore restore_of(const PreparedCall& call);

// The workload of a planned case (its inputs made on its device from its seed). `first`: the
// case's first repetition, where a stage other than eager is checked against eager, once a case.
// A variant group's implementation is held against its baseline (results::Variant) in every
// repetition: before it is timed here (measure::CheckFailed when they differ), after it by the
// driver (Workload::check_after).
measure::Workload make_workload(const results::Case& c, bool first = true);
// The forward workload of an operator case on arguments made by the caller.
measure::Workload operator_workload(PreparedCall& call);

// An operator's forward computation, for the stages and the checks: its tensor arguments are the
// inputs (other arguments, tensor lists among them, are constants of the trace). `for_training`:
// its floating inputs require grad, but for those it writes in place (a leaf that requires grad
// cannot be written: an in-place operator's `self`, batch norm's running statistics).
stages::TensorFunction operator_function(const results::Case& c, bool for_training = false);

} // namespace opbench::exec
