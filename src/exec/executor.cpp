#include "opbench/exec/executor.hpp"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/jit/serialization/import.h>

#include <functional>
#include <memory>

#if OPBENCH_WITH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "opbench/exec/cuda_timer.hpp"
#endif

#include "opbench/core/error.hpp"
#include "opbench/core/log.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/cost/cost.hpp"
#include "opbench/cost/roofline.hpp"
#include "opbench/exec/aten_calls.hpp"
#include "opbench/exec/canary.hpp"
#include "opbench/exec/device_support.hpp"
#include "opbench/exec/inputs.hpp"
#include "opbench/exec/memory_probe.hpp"
#include "opbench/exec/timer.hpp"
#include "opbench/exec/typed_call.hpp"
#include "registry.hpp"

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


// Times `call` with the clock the case's device calls for: steady_clock on the CPU; CUDA events
// on the current stream (or, with --timer host, the host clock with a synchronize) on CUDA.
// Cold mode overwrites a cache-sized buffer on the device before every timed call.
template <typename Call>
Measurement timed(const plan::Case& c, const ExecOptions& options, Call& call, results::TimingInfo& timing) {
  const at::Device device = device_of(c.device);
  at::Tensor flush_buffer;
  std::function<void()> flush;
  timing.mode = options.cold ? "cold" : "hot";
  if (options.cold) {
    flush_buffer = at::empty({flush_bytes(c.device)}, at::TensorOptions().dtype(at::kByte).device(device));
    flush = [&flush_buffer, value = 0]() mutable { flush_buffer.fill_((++value) & 0x7f); };
  }
  // On the CPU a block during which the process was descheduled is taken again (see
  // MeasureOptions::interruptions); CUDA event times are the device's and need no such check.
  MeasureOptions measure_options = options.measure;
  if (device.is_cpu()) measure_options.interruptions = interruptions_of_this_process;
  // The canary before and after says whether the machine ran at full speed meanwhile.
  const int threads = at::get_num_threads();
  auto run = [&](auto& timer) {
    timing.timer = timer.name();
    const double before = device.is_cpu() ? canary_seconds(threads) : 0.0;
    Measurement m = options.cold ? measure_cold(call, flush, measure_options, timer)
                                 : measure(call, measure_options, timer);
    const double after = device.is_cpu() ? canary_seconds(threads) : 0.0;
    timing.discarded_blocks = m.discarded;
    timing.canary = std::max(before, after);
    return m;
  };
#if OPBENCH_WITH_CUDA
  if (device.is_cuda()) {
    const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(device.index());
    if (options.timer == "host") {
      SteadyTimer timer([stream] { stream.synchronize(); });
      return run(timer);
    }
    CudaEventTimer timer(stream);
    return run(timer);
  }
#endif
  SteadyTimer timer;
  return run(timer);
}

// Shapes of a call's tensors: every tensor argument (list elements too), and the outputs that do
// not alias an input (views and in-place results move no new bytes).
cost::CallShapes shapes_of(const plan::Case& c, const PreparedCall& call,
                           const std::vector<c10::IValue>& outputs) {
  cost::CallShapes shapes;
  shapes.op = c.op;
  shapes.arguments = c.arguments;
  std::vector<at::Tensor> inputs;
  auto info = [](const std::string& name, const at::Tensor& t) {
    return cost::TensorInfo{name, t.sizes().vec(), static_cast<std::int64_t>(t.element_size())};
  };
  const auto& arguments = call.handle.schema().arguments();
  for (std::size_t i = 0; i < arguments.size() && i < call.args.size(); ++i) {
    const c10::IValue& v = call.args[i];
    if (v.isTensor() && v.toTensor().defined()) {
      shapes.inputs.push_back(info(arguments[i].name(), v.toTensor()));
      inputs.push_back(v.toTensor());
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) {
        shapes.inputs.push_back(info(arguments[i].name(), t));
        inputs.push_back(t);
      }
    }
  }
  auto add_output = [&](const c10::IValue& v) {
    if (!v.isTensor() || !v.toTensor().defined()) return;
    const at::Tensor& t = v.toTensor();
    for (const auto& in : inputs) {
      if (t.is_alias_of(in)) return;
    }
    shapes.outputs.push_back(info("", t));
  };
  for (const auto& v : outputs) {
    if (v.isTuple()) {
      for (const auto& item : v.toTupleRef().elements()) add_output(item);
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) add_output(t);
    } else {
      add_output(v);
    }
  }
  return shapes;
}

void finish(results::CaseResult& result, const Measurement& m, const MeasureOptions& options) {
  result.samples = m.samples;
  result.summary = stats::summarize(m.samples);
  result.timing.block_size = m.block_size;
  result.timing.warmup_calls = m.warmup_calls;
  result.timing.total_time = m.total_time;
  result.timing.target_noise = options.target_noise;
  result.timing.noise = m.noise;
  result.timing.noise_reached = m.noise_reached;
  // One repetition; run_command's combine_repetitions makes the estimate over all of them.
  result.timing.repetition_medians = {result.summary.median};
  result.estimate = results::estimate_of(result.timing.repetition_medians);
}

// The memory probe of one call; on CUDA also the caching allocator's peaks.
results::MemoryStats probe(const plan::Case& c, const std::function<void()>& call) {
#if OPBENCH_WITH_CUDA
  const at::Device device = device_of(c.device);
  if (device.is_cuda()) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(device.index());
    results::MemoryStats stats = probe_memory(call);
    c10::cuda::device_synchronize();
    const auto device_stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
    const auto aggregate = static_cast<std::size_t>(c10::CachingDeviceAllocator::StatType::AGGREGATE);
    stats.device_peak_allocated_bytes = device_stats.allocated_bytes[aggregate].peak;
    stats.device_peak_reserved_bytes = device_stats.reserved_bytes[aggregate].peak;
    return stats;
  }
#else
  (void)c;
#endif
  return probe_memory(call);
}

#if OPBENCH_WITH_CUDA
// Captures `calls` calls of `once` into a CUDA graph on a side stream; throws when capture fails.
std::unique_ptr<at::cuda::CUDAGraph> capture_graph(const at::Device& device, const std::function<void()>& once,
                                                   int calls) {
  auto graph = std::make_unique<at::cuda::CUDAGraph>();
  const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, device.index());
  const c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream(device.index());
  side.synchronize();
  current.synchronize();
  {
    c10::cuda::CUDAStreamGuard guard(side);
    for (int i = 0; i < 3; ++i) once();  // warm up on the capturing stream, as capture requires
    side.synchronize();
    graph->capture_begin();
    for (int i = 0; i < calls; ++i) once();
    graph->capture_end();
  }
  side.synchronize();
  return graph;
}
#endif

}  // namespace

void run_forward_prepared(const plan::Case& c, PreparedCall& call, const ExecOptions& options,
                          results::CaseResult& result) {
  at::NoGradGuard no_grad;
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
  Measurement m;
  bool timed_already = false;
#if OPBENCH_WITH_CUDA
  if (options.cuda_graph && device_of(c.device).is_cuda()) {
    const int calls = options.cold ? 1 : std::max(1, options.graph_calls);
    std::unique_ptr<at::cuda::CUDAGraph> graph;
    try {
      graph = capture_graph(device_of(c.device), once, calls);
    } catch (const std::exception& e) {
      result.timing.cuda_graph = "fallback: " + core::first_line(e.what());
    }
    if (graph) {
      auto replay = [&graph] { graph->replay(); };
      m = timed(c, options, replay, result.timing);
      for (double& s : m.samples) s /= calls;  // a replay runs `calls` calls
      m.block_size *= calls;
      m.noise = stats::cv(m.samples);
      result.timing.cuda_graph = "on (" + std::to_string(calls) + " calls per replay)";
      timed_already = true;
    }
  }
#endif
  if (!timed_already) {
    at::Tensor typed_out;
    const std::function<void()> typed = typed_call(call, typed_out);
    result.timing.call_path = typed ? "typed" : "boxed";
    if (typed) {
      m = timed(c, options, typed, result.timing);
      previous.assign(1, typed_out);
    } else {
      m = timed(c, options, once, result.timing);
    }
  }
  finish(result, m, options.measure);
  // `previous` holds the last call's outputs.
  const cost::Cost work = cost::estimate(shapes_of(c, call, previous));
  result.work.flops = work.flops;
  result.work.bytes = work.bytes;
  result.work.flops_rule = work.flops_rule;
  cost::apply_roofline(result.work, result.summary.median, nullptr);
  if (options.describe) {
    result.work.aten_calls = count_aten_calls([&] {
      std::vector<c10::IValue> s(call.args.begin(), call.args.end());
      call.handle.callBoxed(s);
    });
  }
  if (options.memory) {
    stack.clear();
    previous.clear();
    result.memory = probe(c, [&] {
      std::vector<c10::IValue> s(call.args.begin(), call.args.end());
      call.handle.callBoxed(s);
    });
  }
}

namespace {

void run_forward(const plan::Case& c, const ExecOptions& options, results::CaseResult& result) {
  PreparedCall call = prepare_call(c, /*requires_grad=*/false);
  run_forward_prepared(c, call, options, result);
}

// Times the gradients of `outputs` with respect to `inputs` over the retained graph.
void time_gradients(const plan::Case& c, const ExecOptions& options, results::CaseResult& result,
                    const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& inputs) {
  if (outputs.empty()) {
    result.status = "skipped";
    result.message = "no differentiable output (the operator has no derivative for these inputs)";
    return;
  }
  std::vector<at::Tensor> grad_outputs;
  for (const auto& out : outputs) grad_outputs.push_back(at::ones_like(out));
  // torch::autograd::grad returns the gradients instead of accumulating them into .grad; the
  // graph is retained so every call walks the same graph.
  std::vector<at::Tensor> grads;
  auto once = [&] {
    grads = torch::autograd::grad(outputs, inputs, grad_outputs, /*retain_graph=*/true,
                                  /*create_graph=*/false, /*allow_unused=*/true);
  };
  if (options.cuda_graph) result.timing.cuda_graph = "fallback: backward cases are not captured";
  const Measurement m = timed(c, options, once, result.timing);
  finish(result, m, options.measure);
  if (options.memory) {
    grads.clear();
    result.memory = probe(c, once);
  }
}

void run_backward(const plan::Case& c, const ExecOptions& options, results::CaseResult& result) {
  at::AutoGradMode grad_mode(true);
  PreparedCall call = prepare_call(c, /*requires_grad=*/true);
  if (call.grad_inputs.empty()) {
    result.status = "skipped";
    result.message = "no floating-point tensor input to differentiate";
    return;
  }
  std::vector<c10::IValue> stack(call.args.begin(), call.args.end());
  call.handle.callBoxed(stack);
  time_gradients(c, options, result, differentiable_outputs(stack), call.grad_inputs);
}

// A long-tail sample: its own input maker (valid boxes, labels in range) and body.
void run_sample(const plan::Case& c, const ExecOptions& options, results::CaseResult& result) {
  const samples::Sample* sample = samples::find(c.name);
  if (sample == nullptr) throw Error("no sample named " + c.name + " is built in");
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(c.seed);
  std::vector<at::Tensor> inputs = sample->make_inputs(c.given.at("sizes"), generator);
  const at::ScalarType dtype = scalar_type(c.dtype);
  for (auto& t : inputs) t = t.to(device_of(c.device), at::isFloatingType(t.scalar_type()) ? dtype : t.scalar_type());
  if (c.direction == "backward") {
    if (!sample->info.backward) {
      result.status = "skipped";
      result.message = "this sample's backward is not timed (LongTail-Bench times it forward only)";
      return;
    }
    at::AutoGradMode grad_mode(true);
    std::vector<at::Tensor> grad_inputs;
    for (auto& t : inputs) {
      if (at::isFloatingType(t.scalar_type())) grad_inputs.push_back(t.requires_grad_(true));
    }
    std::vector<at::Tensor> outputs;
    for (const auto& out : sample->body(inputs)) {
      if (out.defined() && out.requires_grad()) outputs.push_back(out);
    }
    time_gradients(c, options, result, outputs, grad_inputs);
    return;
  }
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> outputs;
  auto once = [&] { outputs = sample->body(inputs); };
  const Measurement m = timed(c, options, once, result.timing);
  finish(result, m, options.measure);
  result.timing.call_path = "sample";
  if (options.describe) result.work.aten_calls = count_aten_calls([&] { sample->body(inputs); });
  if (options.memory) {
    outputs.clear();
    result.memory = probe(c, [&] { sample->body(inputs); });
  }
}

// A whole TorchScript model as one case: forward on inputs made from the case's specs.
void run_model(const plan::Case& c, const ExecOptions& options, results::CaseResult& result) {
  at::NoGradGuard no_grad;
  torch::jit::Module module = torch::jit::load(c.given.at("model").get<std::string>(), device_of(c.device));
  module.eval();
  const std::vector<c10::IValue> inputs = make_tensors(c, c.given.at("inputs"));
  c10::IValue output;
  auto once = [&] { output = module.forward(inputs); };
  const Measurement m = timed(c, options, once, result.timing);
  finish(result, m, options.measure);
  if (options.memory) {
    output = c10::IValue();
    result.memory = probe(c, once);
  }
}

}  // namespace

int default_threads() { return at::get_num_threads(); }

void check_device(const std::string& device) {
  const at::Device d = device_of(device);
  if (d.is_cpu()) return;
  if (!d.is_cuda()) throw DeviceError("device " + device + " is not supported (valid: cpu, gpuN, cuda:N)");
  if (!cuda_compiled()) {
    throw DeviceError("device " + device +
                      " is not available: this opbench is built against a LibTorch without CUDA");
  }
  const int visible = cuda_device_count();
  if (d.index() >= visible) {
    throw DeviceError("device " + device + " is not available: LibTorch is built with CUDA and " +
                      std::to_string(visible) + " CUDA device(s) are visible");
  }
}

std::int64_t placement_padding(std::uint64_t seed, int repetition) {
  // splitmix64 of (seed, repetition): a fixed, well-mixed draw, the same on every platform.
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(repetition + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  constexpr std::uint64_t k_steps = (64 * 1024) / 64;
  return static_cast<std::int64_t>((z % k_steps) * 64);
}

results::CaseResult run_case(const plan::Case& c, const ExecOptions& options) {
  results::CaseResult result;
  result.c = c;
  result.timing.target_noise = options.measure.target_noise;
  if (!c.skip_reason.empty()) {
    result.status = "skipped";
    result.message = c.skip_reason;
    return result;
  }
  try {
    at::set_num_threads(c.threads);
#if OPBENCH_WITH_CUDA
    std::optional<c10::cuda::CUDAGuard> guard;
    if (device_of(c.device).is_cuda()) guard.emplace(device_of(c.device));
#endif
    // Held until the case ends, so the inputs and outputs made after it sit past it.
    const at::Tensor padding =
        at::empty({placement_padding(c.seed, options.repetition) + 1},
                  at::TensorOptions().dtype(at::kByte).device(device_of(c.device)));
    result.timing.placement_padding = padding.numel() - 1;
    if (c.kind == "model") {
      run_model(c, options, result);
    } else if (c.kind == "sample") {
      run_sample(c, options, result);
    } else if (c.direction == "backward") {
      run_backward(c, options, result);
    } else {
      run_forward(c, options, result);
    }
  } catch (const std::exception& e) {
    const std::string mode = result.timing.mode;
    const std::string graph = result.timing.cuda_graph;
    result = results::CaseResult{};
    result.c = c;
    result.timing.target_noise = options.measure.target_noise;
    result.timing.mode = mode;
    result.timing.cuda_graph = graph;
    // The whole text (LibTorch's stack frames too) stays in the result; the console and the
    // Markdown report show its first line.
    result.message = core::trim(e.what());
    // A kernel with no implementation for this dtype on this device is a skipped case: the
    // operator does not support it, nothing failed.
    const bool unsupported = result.message.find("not implemented for '") != std::string::npos;
    result.status = unsupported ? "skipped" : "error";
    if (unsupported) result.message = c.dtype + " is not supported here: " + result.message;
    core::log_debug(c.case_id + ": " + e.what());
  }
  return result;
}

}  // namespace opbench::exec
