// The makers of workload.hpp: each kind of case turned into the one Workload the driver runs.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/grad_mode.h>
#include <torch/csrc/jit/serialization/import.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gradients.hpp"
#include "implementation_check.hpp"
#include "makers.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/exec/case_function.hpp"
#include "opbench/exec/typed_call.hpp"
#include "opbench/machine/devices.hpp"
#include "opbench/measure/holding.hpp"
#include "opbench/measure/loop.hpp"
#include "opbench/stages/stages.hpp"
#include "registry.hpp"

namespace opbench::exec {

using measure::Phase;

using machine::device_of;
using machine::scalar_type;
using measure::hold_phase;
using measure::repeated;
using measure::Restore;
using measure::SkipCase;
using measure::tensor_bytes;
using measure::Workload;
using stages::staged_workload;
using stages::TensorFunction;

namespace {

Workload operator_backward(const results::Case& c) {
  at::AutoGradMode grad_mode(true);
  auto call = std::make_shared<PreparedCall>(prepare_call(c, /*requires_grad=*/true));
  if (call->grad_inputs.empty())
    throw SkipCase("no floating-point tensor input to differentiate");
  std::vector<c10::IValue> stack(call->args.begin(), call->args.end());
  call->handle.callBoxed(stack);
  return gradient_workload(differentiable_outputs(stack), call->grad_inputs, call);
}

// A training step of an operator: what autograd refuses is no failure of the case. Arguments the
// schema marks written (but out=) stop requiring grad; an out= variant is skipped. Returns the
// written tensors.
std::vector<at::Tensor> keep_written_out_of_autograd(PreparedCall& call) {
  std::vector<at::Tensor> all_written;
  for (WrittenArgument& written : written_arguments(call)) {
    if (written.argument->is_out())
      throw SkipCase("an out= variant: autograd does not differentiate out= arguments");
    for (at::Tensor& t : written.tensors) {
      if (t.requires_grad())
        t.requires_grad_(false);
      all_written.push_back(t);
    }
  }
  std::vector<at::Tensor> grad_inputs;
  for (const at::Tensor& t : call.grad_inputs) {
    if (t.requires_grad())
      grad_inputs.push_back(t);
  }
  call.grad_inputs = std::move(grad_inputs);
  return all_written;
}

// A long-tail sample's inputs: its own input maker (valid boxes, labels in range). Its last
// `host_inputs` inputs are parameters the body reads on the host (counts, scales): they stay on
// the CPU, as the Python numbers of the original would.
struct SampleInputs {
  const samples::Sample* sample = nullptr;
  samples::Sample::Body body; // at the case's parameters
  std::vector<at::Tensor> inputs;
  std::size_t on_device = 0;
};

SampleInputs sample_inputs(const results::Case& c) {
  SampleInputs out;
  out.sample = samples::find(c.name);
  if (out.sample == nullptr)
    throw Error("no sample named " + c.name + " is built in");
  for (const auto& item : c.given.items()) {
    if (item.key() == "sizes")
      continue;
    const auto* parameter = catalog::find_parameter(out.sample->info.parameters, item.key());
    if (parameter == nullptr)
      throw Error("sample " + c.name + " has no parameter '" + item.key() + "'");
    if (!parameter->accepts(item.value())) {
      throw Error("sample " + c.name + ": parameter " + item.key() + " = " + item.value().dump() +
                  " is not " + parameter->domain());
    }
  }
  out.body = out.sample->bind(c.given);
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(c.seed);
  out.inputs = out.sample->make_inputs(c.given.at("sizes"), generator);
  out.on_device =
      samples::place_inputs(*out.sample, out.inputs, scalar_type(c.dtype), device_of(c.device));
  return out;
}

// The inputs training differentiates, made to require grad (every sample that times its backward
// names them: registry.hpp). Throws SkipCase for a sample LongTail-Bench times forward only.
std::vector<at::Tensor> mark_grad_inputs(const samples::Sample& sample,
                                         std::vector<at::Tensor>& inputs, std::size_t on_device) {
  if (!sample.info.backward) {
    throw SkipCase("this sample's backward is not timed (LongTail-Bench times it forward only)");
  }
  std::vector<at::Tensor> grad_inputs;
  for (std::size_t i : sample.info.grad_inputs) {
    if (i >= on_device || !at::isFloatingType(inputs[i].scalar_type())) {
      throw Error("sample " + sample.info.name + ": grad input " + std::to_string(i) +
                  " is not a floating input on the device (it has " + std::to_string(on_device) +
                  ")");
    }
    grad_inputs.push_back(inputs[i].requires_grad_(true));
  }
  return grad_inputs;
}

// A sample's forward computation, for the stages; `for_training`: the inputs training
// differentiates require grad.
TensorFunction sample_function(const results::Case& c, bool for_training = false) {
  SampleInputs made = sample_inputs(c);
  if (for_training)
    mark_grad_inputs(*made.sample, made.inputs, made.on_device);
  TensorFunction f;
  f.inputs = std::move(made.inputs);
  const samples::Sample* sample = made.sample;
  f.body = std::move(made.body);
  if (sample->info.host_inputs > 0) {
    f.note = "the values of the inputs read on the host are constants of the trace, as in the case";
  }
  return f;
}

// A long-tail sample: its inputs (sample_inputs) and body.
Workload sample_workload(const results::Case& c) {
  SampleInputs made = sample_inputs(c);
  const samples::Sample* sample = made.sample;
  std::vector<at::Tensor>& inputs = made.inputs;
  const std::size_t on_device = made.on_device;
  if (c.direction == results::Direction::backward) {
    at::AutoGradMode grad_mode(true);
    std::vector<at::Tensor> grad_inputs = mark_grad_inputs(*sample, inputs, on_device);
    std::vector<at::Tensor> outputs;
    for (const auto& out : made.body(inputs)) {
      if (out.defined() && out.requires_grad())
        outputs.push_back(out);
    }
    auto keep = std::make_shared<std::vector<at::Tensor>>(std::move(inputs));
    return gradient_workload(std::move(outputs), std::move(grad_inputs), keep);
  }
  struct State {
    samples::Sample::Body body;
    std::vector<at::Tensor> inputs, outputs;
  };
  auto s = std::make_shared<State>(State{std::move(made.body), std::move(inputs), {}});
  Workload w;
  w.input_bytes = tensor_bytes(s->inputs);
  w.call = [s] { s->outputs = s->body(s->inputs); };
  w.release = [s] { s->outputs.clear(); };
  w.call_path = results::CallPath::sample;
  w.state = s;
  return w;
}

// A whole TorchScript model as one case: forward on inputs made from the case's specs.
Workload model_workload(const results::Case& c) {
  struct State {
    torch::jit::Module module;
    std::vector<c10::IValue> inputs;
    c10::IValue output;
  };
  auto s = std::make_shared<State>();
  s->module = torch::jit::load(c.given.at("model").get<std::string>(), device_of(c.device));
  s->module.eval();
  s->inputs = make_tensors(c, c.given.at("inputs"));
  Workload w;
  w.input_bytes = tensor_bytes(s->inputs);
  w.call = [s] { s->output = s->module.forward(s->inputs); };
  w.release = [s] { s->output = c10::IValue(); };
  w.call_path = results::CallPath::model;
  w.state = s;
  return w;
}

} // namespace

// An operator's forward computation, for the stages: its tensor arguments are the inputs (other
// arguments, tensor lists among them, are constants of the trace). `for_training`: its floating
// inputs require grad, but for those it writes in place (a leaf that requires grad cannot be
// written: an in-place operator's `self`, batch norm's running statistics), as in training.
TensorFunction operator_function(const results::Case& c, bool for_training) {
  auto call = std::make_shared<PreparedCall>(prepare_call(c, for_training));
  const std::vector<at::Tensor> written =
      for_training ? keep_written_out_of_autograd(*call) : std::vector<at::Tensor>{};
  TensorFunction f;
  f.restore = restore_of(*call); // the inputs below are the call's own tensors
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < call->args.size(); ++i) {
    if (call->args[i].isTensor() && call->args[i].toTensor().defined()) {
      positions.push_back(i);
      f.inputs.push_back(call->args[i].toTensor());
    }
  }
  f.body = [call, positions, written](const std::vector<at::Tensor>& inputs) {
    // Training: a written input joined the last step's graph (add_(self, other) gives self a
    // grad_fn); cut it off, or each step would differentiate through every step before it (a
    // metadata change: no data moves).
    for (at::Tensor t : written)
      t.detach_();
    std::vector<c10::IValue> stack(call->args.begin(), call->args.end());
    for (std::size_t k = 0; k < positions.size(); ++k)
      stack[positions[k]] = inputs[k];
    call->handle.callBoxed(stack);
    std::vector<at::Tensor> out;
    for (const auto& value : stack) {
      if (value.isTensor()) {
        out.push_back(value.toTensor());
      } else if (value.isTensorList()) {
        for (const at::Tensor& t : value.toTensorVector())
          out.push_back(t);
      } else if (value.isTuple()) {
        for (const auto& item : value.toTupleRef().elements()) {
          if (item.isTensor())
            out.push_back(item.toTensor());
        }
      }
    }
    return out;
  };
  f.keep = call;
  return f;
}

std::vector<WrittenArgument> written_arguments(const PreparedCall& call) {
  std::vector<WrittenArgument> out;
  const auto& arguments = call.handle.schema().arguments();
  for (std::size_t i = 0; i < arguments.size() && i < call.args.size(); ++i) {
    const c10::Argument& argument = arguments[i];
    if (argument.alias_info() == nullptr || !argument.alias_info()->isWrite())
      continue;
    std::vector<at::Tensor> tensors;
    if (call.args[i].isTensor()) {
      tensors.push_back(call.args[i].toTensor());
    } else if (call.args[i].isTensorList()) {
      tensors = call.args[i].toTensorVector();
    }
    tensors.erase(std::remove_if(tensors.begin(), tensors.end(),
                                 [](const at::Tensor& t) { return !t.defined(); }),
                  tensors.end());
    if (!tensors.empty())
      out.push_back({&argument, std::move(tensors)});
  }
  return out;
}

Restore restore_of(const PreparedCall& call) {
  struct Saved {
    std::vector<at::Tensor> targets, made;
  };
  auto saved = std::make_shared<Saved>();
  Restore restore;
  for (const WrittenArgument& written : written_arguments(call)) {
    if (written.argument->is_out())
      continue;
    for (const at::Tensor& t : written.tensors) {
      saved->targets.push_back(t);
      saved->made.push_back(t.detach().clone());
    }
    restore.arguments.push_back(written.argument->name());
  }
  if (saved->targets.empty())
    return restore;
  restore.run = [saved] {
    at::NoGradGuard no_grad;
    for (std::size_t i = 0; i < saved->targets.size(); ++i)
      saved->targets[i].copy_(saved->made[i]);
  };
  return restore;
}

Workload operator_workload(PreparedCall& call) {
  // Two stacks, so the previous call's outputs stay alive while the next one runs, as in a plain
  // `out = op(...)` loop.
  struct State {
    std::vector<c10::IValue> stack, previous;
  };
  auto s = std::make_shared<State>();
  s->stack.reserve(call.args.size() + 4);
  s->previous.reserve(call.args.size() + 4);
  Workload w;
  w.state = s;
  w.input_bytes = tensor_bytes(call.args);
  w.restore = restore_of(call);
  if (TypedCall typed = typed_call(call)) {
    w.call = std::move(typed.call);
    w.repeat = std::move(typed.repeat);
    w.release = std::move(typed.release);
    w.call_path = results::CallPath::typed;
    return w;
  }
  auto one = [s, &call] {
    s->stack.assign(call.args.begin(), call.args.end());
    call.handle.callBoxed(s->stack);
    s->stack.swap(s->previous);
  };
  w.repeat = repeated(one);
  w.call = std::move(one);
  w.release = [s] {
    s->stack.clear();
    s->previous.clear();
  };
  w.call_path = results::CallPath::boxed;
  return w;
}

namespace {

// A variant group's implementation (checked against its baseline): a forward operator case.
bool is_implementation(const results::Case& c) {
  return !c.variant.baseline_id.empty() && c.kind == results::Kind::op &&
         c.direction == results::Direction::forward;
}

// make_workload without the check before the timing.
Workload unchecked_workload(const results::Case& c, bool first) {
  if (c.stage != results::Stage::eager) {
    if (c.kind == results::Kind::model)
      throw SkipCase("a model case is TorchScript already: it runs at stage eager only");
    return staged_workload(
        c, c.kind == results::Kind::sample ? sample_function(c) : operator_function(c), first);
  }
  if (c.kind == results::Kind::model) {
    if (c.direction != results::Direction::forward)
      throw SkipCase("a model case times its forward only");
    return model_workload(c);
  }
  if (c.direction == results::Direction::train) {
    if (c.kind == results::Kind::op)
      return training_workload(operator_function(c, /*for_training=*/true));
    return training_workload(sample_function(c, /*for_training=*/true));
  }
  if (c.kind == results::Kind::sample)
    return sample_workload(c);
  if (c.direction == results::Direction::backward)
    return operator_backward(c);
  auto call = std::make_shared<PreparedCall>(prepare_call(c, /*requires_grad=*/false));
  check_returns(c, *call);
  Workload w = operator_workload(*call);
  if (is_implementation(c))
    w.check_after = check_after(c, call);
  w.state = std::make_shared<std::pair<std::shared_ptr<PreparedCall>, std::shared_ptr<void>>>(
      call, w.state);
  return w;
}

} // namespace

TensorFunction case_function(const results::Case& c) {
  if (c.kind == results::Kind::model)
    throw SkipCase("a model case is one TorchScript call: it has no computation of its inputs");
  return c.kind == results::Kind::sample ? sample_function(c) : operator_function(c);
}

Workload make_workload(const results::Case& c, bool first) {
  std::optional<results::OutputCheck> checked;
  if (is_implementation(c)) {
    hold_phase(Phase::check);
    checked = check_before(c);
    hold_phase(Phase::inputs);
  }
  Workload w = unchecked_workload(c, first);
  w.check = checked;
  return w;
}

} // namespace opbench::exec
