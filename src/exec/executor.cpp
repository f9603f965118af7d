#include "opbench/exec/executor.hpp"

#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>
#include <ATen/Context.h>
#include <torch/csrc/autograd/autograd.h>

#include "opbench/core/error.hpp"
#include "opbench/core/log.hpp"
#include "opbench/exec/inputs.hpp"
#include "opbench/exec/memory_probe.hpp"
#include "opbench/exec/timer.hpp"

namespace opbench::exec {
namespace {

// Differentiable tensors among a call's outputs.
std::vector<at::Tensor> differentiable_outputs(const std::vector<c10::IValue>& stack) {
  std::vector<at::Tensor> out;
  auto take = [&](const c10::IValue& v) {
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().requires_grad()) {
      out.push_back(v.toTensor());
    }
  };
  for (const auto& value : stack) {
    if (value.isTensorList()) {
      for (const at::Tensor& t : value.toTensorVector()) take(t);
    } else if (value.isTuple()) {
      for (const auto& item : value.toTupleRef().elements()) take(item);
    } else {
      take(value);
    }
  }
  return out;
}

results::CaseResult finish(results::CaseResult result, const Measurement& m,
                           const MeasureOptions& options) {
  result.samples = m.samples;
  result.summary = stats::summarize(m.samples);
  result.timing.timer = SteadyTimer::name();
  result.timing.block_size = m.block_size;
  result.timing.warmup_calls = m.warmup_calls;
  result.timing.total_time = m.total_time;
  result.timing.target_noise = options.target_noise;
  result.timing.noise = m.noise;
  result.timing.noise_reached = m.noise_reached;
  return result;
}

results::CaseResult run_forward(const plan::Case& c, const ExecOptions& options,
                                results::CaseResult result) {
  at::NoGradGuard no_grad;
  PreparedCall call = prepare_call(c, /*requires_grad=*/false);
  // Two stacks, so the previous call's outputs stay alive while the next one runs, as in a plain
  // `out = op(...)` loop.
  std::vector<c10::IValue> stack;
  std::vector<c10::IValue> previous;
  stack.reserve(call.args.size() + 4);
  previous.reserve(call.args.size() + 4);
  auto once = [&] {
    stack.assign(call.args.begin(), call.args.end());
    call.handle.callBoxed(stack);
    stack.swap(previous);
  };
  const Measurement m = measure<SteadyTimer>(once, options.measure);
  if (options.memory) {
    stack.clear();
    previous.clear();
    result.memory = probe_memory([&] {
      std::vector<c10::IValue> s(call.args.begin(), call.args.end());
      call.handle.callBoxed(s);
    });
  }
  return finish(std::move(result), m, options.measure);
}

results::CaseResult run_backward(const plan::Case& c, const ExecOptions& options,
                                 results::CaseResult result) {
  at::AutoGradMode grad_mode(true);
  PreparedCall call = prepare_call(c, /*requires_grad=*/true);
  if (call.grad_inputs.empty()) {
    result.status = "skipped";
    result.message = "no floating-point tensor input to differentiate";
    return result;
  }
  std::vector<c10::IValue> stack(call.args.begin(), call.args.end());
  call.handle.callBoxed(stack);
  const std::vector<at::Tensor> outputs = differentiable_outputs(stack);
  if (outputs.empty()) {
    result.status = "skipped";
    result.message = "no differentiable output (the operator has no derivative for these inputs)";
    return result;
  }
  std::vector<at::Tensor> grad_outputs;
  for (const auto& out : outputs) grad_outputs.push_back(at::ones_like(out));
  // torch::autograd::grad returns the gradients instead of accumulating them into .grad; the
  // graph is retained so every call walks the same graph.
  std::vector<at::Tensor> grads;
  auto once = [&] {
    grads = torch::autograd::grad(outputs, call.grad_inputs, grad_outputs,
                                  /*retain_graph=*/true, /*create_graph=*/false,
                                  /*allow_unused=*/true);
  };
  const Measurement m = measure<SteadyTimer>(once, options.measure);
  if (options.memory) {
    grads.clear();
    result.memory = probe_memory(once);
  }
  return finish(std::move(result), m, options.measure);
}

}  // namespace

void check_device(const std::string& device) {
  const at::Device d = device_of(device);
  if (d.is_cpu()) return;
  if (!d.is_cuda()) throw DeviceError("device " + device + " is not supported (valid: cpu, gpuN, cuda:N)");
  const std::size_t visible = at::getNumGPUs();
  if (static_cast<std::size_t>(d.index()) >= visible) {
    throw DeviceError("device " + device + " is not available: LibTorch is built " +
                      (OPBENCH_TORCH_HAS_CUDA ? "with" : "without") + " CUDA and " +
                      std::to_string(visible) + " CUDA device(s) are visible");
  }
  throw DeviceError("device " + device +
                    ": this opbench times CPU cases only; CUDA event timing is not built yet");
}

int default_threads() { return at::get_num_threads(); }

results::CaseResult run_case(const plan::Case& c, const ExecOptions& options) {
  results::CaseResult result;
  result.c = c;
  result.timing.target_noise = options.measure.target_noise;
  try {
    at::set_num_threads(c.threads);
    return c.direction == "backward" ? run_backward(c, options, std::move(result))
                                     : run_forward(c, options, std::move(result));
  } catch (const std::exception& e) {
    // `result` was moved into the run above: start again from the case.
    result = results::CaseResult{};
    result.c = c;
    result.timing.target_noise = options.measure.target_noise;
    result.status = "error";
    std::string message = e.what();
    // LibTorch appends a C++ stack trace after the first line; keep the message a user reads.
    if (const auto cut = message.find("\nException raised from"); cut != std::string::npos) {
      message.resize(cut);
    }
    result.message = message;
    core::log_debug(c.case_id + ": " + e.what());
    return result;
  }
}

}  // namespace opbench::exec
