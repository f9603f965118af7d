#include "gradients.hpp"

#include <ATen/core/grad_mode.h>
#include <torch/csrc/autograd/autograd.h>

#include <utility>

#include "opbench/measure/memory_probe.hpp"

namespace opbench::exec {

using measure::held_bytes;
using measure::SkipCase;
using measure::tensor_bytes;
using measure::Workload;
using stages::TensorFunction;

namespace {

// What every autograd workload shares: its gradients dropped by `release`, grad mode on, no
// recording of its calls, never captured in a CUDA graph (`why`).
template <class State>
void autograd_workload(Workload& w, const std::shared_ptr<State>& s, results::CallPath path,
                       const char* why) {
  w.release = [s] { s->grads.clear(); };
  w.call_path = path;
  w.not_capturable = why;
  w.grad_mode = true;
  w.recordable = false;
  w.state = s;
}

// Appends the tensors of `tensors` that require grad to `out`.
void append_requiring_grad(const std::vector<at::Tensor>& tensors, std::vector<at::Tensor>& out) {
  for (const at::Tensor& t : tensors) {
    if (t.defined() && t.requires_grad())
      out.push_back(t);
  }
}

} // namespace

std::vector<at::Tensor> differentiable_outputs(const std::vector<c10::IValue>& stack) {
  std::vector<at::Tensor> out;
  auto take = [&](const c10::IValue& v) {
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().requires_grad()) {
      out.push_back(v.toTensor());
    }
  };
  for (const auto& value : stack) {
    if (value.isTensorList()) {
      for (const at::Tensor& t : value.toTensorVector())
        take(t);
    } else if (value.isTuple()) {
      for (const auto& item : value.toTupleRef().elements())
        take(item);
    } else {
      take(value);
    }
  }
  return out;
}

Workload gradient_workload(std::vector<at::Tensor> outputs, std::vector<at::Tensor> inputs,
                           std::shared_ptr<void> keep) {
  if (outputs.empty()) {
    throw SkipCase("no differentiable output (the operator has no derivative for these inputs)");
  }
  struct State {
    std::vector<at::Tensor> outputs, inputs, grad_outputs, grads;
    std::shared_ptr<void> keep;
  };
  auto s = std::make_shared<State>();
  for (const auto& out : outputs)
    s->grad_outputs.push_back(at::ones_like(out));
  s->outputs = std::move(outputs);
  s->inputs = std::move(inputs);
  s->keep = std::move(keep);
  Workload w;
  w.input_bytes = tensor_bytes(s->inputs) + tensor_bytes(s->outputs);
  w.call = [s] {
    s->grads = torch::autograd::grad(s->outputs, s->inputs, s->grad_outputs, /*retain_graph=*/true,
                                     /*create_graph=*/false, /*allow_unused=*/true);
  };
  autograd_workload(w, s, results::CallPath::gradient, "backward cases are not captured");
  return w;
}

Workload training_workload(TensorFunction function) {
  at::AutoGradMode grad_mode(true);
  struct State {
    TensorFunction f;
    std::vector<at::Tensor> grad_inputs, grad_outputs, grads;
    std::vector<at::Tensor> outputs; // the step's differentiable outputs, reused between calls
  };
  auto s = std::make_shared<State>();
  s->f = std::move(function);
  append_requiring_grad(s->f.inputs, s->grad_inputs);
  if (s->grad_inputs.empty()) {
    throw SkipCase("no input to differentiate (no floating-point tensor input that is not "
                   "written in place)");
  }
  // One step now: which outputs are differentiable, the ones that seed their gradients (made
  // once, outside the timed calls, as the loss's own gradient would be), and whether LibTorch
  // can differentiate the computation at all: one it cannot is no failure of the case.
  s->f.restore();
  try {
    std::vector<at::Tensor> first;
    append_requiring_grad(s->f.body(s->f.inputs), first);
    for (const at::Tensor& out : first)
      s->grad_outputs.push_back(at::ones_like(out));
    if (s->grad_outputs.empty()) {
      throw SkipCase("no differentiable output (the computation has no derivative for these "
                     "inputs)");
    }
    torch::autograd::grad(first, s->grad_inputs, s->grad_outputs, /*retain_graph=*/false,
                          /*create_graph=*/false, /*allow_unused=*/true);
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    if (what.find("is not implemented") != std::string::npos ||
        what.find("is not differentiable") != std::string::npos) {
      throw SkipCase("no derivative: " + what.substr(0, what.find('\n')));
    }
    throw;
  }
  Workload w;
  w.input_bytes = tensor_bytes(s->f.inputs);
  w.call = [s] {
    s->outputs.clear(); // keeps its capacity: no allocation of ours in the timed call
    append_requiring_grad(s->f.body(s->f.inputs), s->outputs);
    s->grads = torch::autograd::grad(s->outputs, s->grad_inputs, s->grad_outputs,
                                     /*retain_graph=*/false, /*create_graph=*/false,
                                     /*allow_unused=*/true);
  };
  w.kept_for_backward = [s] {
    at::AutoGradMode on(true);
    s->grads.clear();
    s->outputs.clear();
    s->f.restore();
    std::vector<at::Tensor> outputs;
    return held_bytes([&] { outputs = s->f.body(s->f.inputs); });
  };
  w.restore = s->f.restore;
  autograd_workload(w, s, results::CallPath::train, "training steps are not captured");
  w.release = [s] {
    s->grads.clear();
    s->outputs.clear();
  };
  return w;
}

} // namespace opbench::exec
