#pragma once
// Makes a case's arguments: LibTorch values from the bound, normalised JSON, tensors seeded.

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <vector>

#include "opbench/measure/options.hpp"
#include "opbench/results/case.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::exec {

struct PreparedCall {
  c10::OperatorHandle handle;
  std::vector<c10::IValue> args;       // one per schema argument, in order
  std::vector<at::Tensor> grad_inputs; // tensors that require grad (backward cases)
};

// Resolves the operator and makes every argument on the case's device from its seed. With
// `requires_grad`, floating tensors that the config does not exclude require grad.
PreparedCall prepare_call(const results::Case& c, bool requires_grad);

// Tensors made from tensor specs (shape, dtype, init, ...) on the case's device from its seed:
// the inputs of a model case.
std::vector<c10::IValue> make_tensors(const results::Case& c, const Json& specs);

// Runs a forward case on arguments made by prepare_call (the executor's own path, for callers
// that must time other code on the very same tensors, like bench/).
void run_forward_prepared(const results::Case& c, PreparedCall& call,
                          const measure::ExecOptions& options, results::CaseResult& result);

} // namespace opbench::exec
