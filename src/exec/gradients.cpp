#include "gradients.hpp"

#include <torch/csrc/autograd/autograd.h>

#include <utility>

#include "opbench/exec/memory_probe.hpp"

namespace opbench::exec {

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
  w.release = [s] { s->grads.clear(); };
  w.call_path = results::CallPath::gradient;
  w.not_capturable = "backward cases are not captured";
  w.grad_mode = true;
  w.recordable = false;
  w.state = s;
  return w;
}

namespace {

std::vector<at::Tensor> requiring_grad(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> out;
  for (const at::Tensor& t : tensors) {
    if (t.defined() && t.requires_grad())
      out.push_back(t);
  }
  return out;
}

} // namespace

Workload training_workload(TensorFunction function) {
  at::AutoGradMode grad_mode(true);
  struct State {
    TensorFunction f;
    std::vector<at::Tensor> grad_inputs, grad_outputs, grads;
  };
  auto s = std::make_shared<State>();
  s->f = std::move(function);
  s->grad_inputs = requiring_grad(s->f.inputs);
  if (s->grad_inputs.empty()) {
    throw SkipCase("no input to differentiate (no floating-point tensor input that is not "
                   "written in place)");
  }
  // One step now: which outputs are differentiable, the ones that seed their gradients (made
  // once, outside the timed calls, as the loss's own gradient would be), and whether LibTorch
  // can differentiate the computation at all: one it cannot is no failure of the case.
  s->f.restore();
  try {
    const std::vector<at::Tensor> first = requiring_grad(s->f.body(s->f.inputs));
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
    const std::vector<at::Tensor> outputs = requiring_grad(s->f.body(s->f.inputs));
    s->grads = torch::autograd::grad(outputs, s->grad_inputs, s->grad_outputs,
                                     /*retain_graph=*/false, /*create_graph=*/false,
                                     /*allow_unused=*/true);
  };
  w.release = [s] { s->grads.clear(); };
  w.kept_for_backward = [s] {
    at::AutoGradMode on(true);
    s->grads.clear();
    s->f.restore();
    std::vector<at::Tensor> outputs;
    return held_bytes([&] { outputs = s->f.body(s->f.inputs); });
  };
  w.restore = s->f.restore;
  w.call_path = results::CallPath::train;
  w.not_capturable = "training steps are not captured";
  w.grad_mode = true;
  w.recordable = false;
  w.state = s;
  return w;
}

} // namespace opbench::exec
