#pragma once
// The two directions that differentiate (results::Direction): `backward`, the gradients alone over
// a graph recorded once and retained; `train`, a training step, the forward under autograd and
// then its backward, as one call. docs/training.md.
// Internal to exec/.

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

#include <memory>
#include <vector>

#include "opbench/measure/workload.hpp"
#include "opbench/stages/stages.hpp"

namespace opbench::exec {

// The tensors among a call's outputs (tensors, tensor lists, tuples) that require grad.
std::vector<at::Tensor> differentiable_outputs(const std::vector<c10::IValue>& stack);

// `backward`: the gradients of `outputs` with respect to `inputs` over the retained graph, one
// torch::autograd::grad per call (returned, not accumulated into .grad), so every call walks the
// same graph. `keep` holds what the graph's inputs need alive. Throws SkipCase when no output is
// differentiable.
measure::Workload gradient_workload(std::vector<at::Tensor> outputs, std::vector<at::Tensor> inputs,
                                    std::shared_ptr<void> keep);

// `train`: each call runs `function`'s body under autograd on its inputs, then the gradients of
// its differentiable outputs (each seeded with ones, as a sum loss would) with respect to the
// inputs that require grad, without retaining the graph: what one training step of the
// computation costs, the step's peak included. Workload::kept_for_backward runs the forward alone
// and returns the bytes it leaves held for backward. Throws SkipCase when no input requires grad
// or no output is differentiable.
measure::Workload training_workload(stages::TensorFunction function);

} // namespace opbench::exec
