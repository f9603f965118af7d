// The stages other than eager (stages.hpp): trace, optimize, check against eager, then hand the
// driver a workload like any other.
#include "opbench/stages/stages.hpp"

#include <ATen/core/grad_mode.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#if OPBENCH_WITH_CUDA
#include <c10/cuda/CUDAFunctions.h>

#include "opbench/measure/cuda_graph.hpp"
#endif

#include "compiled_artifacts.hpp"
#include "fuser_settings.hpp"
#include "graph_counts.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/machine/devices.hpp"
#include "opbench/measure/loop.hpp"
#include "opbench/results/case.hpp"
#include "stage_parts.hpp"

namespace opbench::stages {

using machine::device_of;
using measure::capture_graph;
using measure::CompilerFailed;
using measure::outputs_differ;
using measure::seconds_since;
using measure::SkipCase;
using measure::tensor_bytes;
using measure::tolerance_for;
using measure::Workload;

Tensors seeded_call(const results::Case& c, const TensorFunction& f) {
  f.restore();
  at::manual_seed(c.seed);
  Tensors outputs = defined_only(f.body(f.inputs));
  for (at::Tensor& t : outputs)
    t = t.clone();
  return outputs;
}

namespace {

// The computation traced into a graph whose inputs are `f.inputs` and whose outputs are the
// defined output tensors.
std::shared_ptr<torch::jit::Graph> trace(const TensorFunction& f) {
  torch::jit::Stack inputs(f.inputs.begin(), f.inputs.end());
  auto traced = torch::jit::tracer::trace(
      std::move(inputs),
      [&f](torch::jit::Stack stack) {
        Tensors tensors;
        tensors.reserve(stack.size());
        for (const auto& value : stack)
          tensors.push_back(value.toTensor());
        // One tuple of every output: a graph function has one output.
        std::vector<c10::IValue> outputs;
        for (const at::Tensor& t : defined_only(f.body(tensors)))
          outputs.emplace_back(t);
        return torch::jit::Stack{c10::ivalue::Tuple::create(std::move(outputs))};
      },
      [](const at::Tensor&) { return std::string(); }, /*strict=*/false, /*force_outplace=*/false);
  return traced.first->graph;
}

struct ScriptState {
  std::shared_ptr<torch::jit::GraphFunction> function;
  TensorFunction f;
  torch::jit::Stack stack, previous;
};

Tensors run_graph(ScriptState& s) {
  s.stack.assign(s.f.inputs.begin(), s.f.inputs.end());
  s.function->run(s.stack);
  Tensors out;
  for (const auto& v : s.stack.at(0).toTupleRef().elements())
    out.push_back(v.toTensor());
  s.stack.clear();
  return out;
}

} // namespace

void settle(const at::Device& device) {
#if OPBENCH_WITH_CUDA
  if (device.is_cuda())
    c10::cuda::device_synchronize();
#else
  (void)device;
#endif
}

Tensors defined_only(Tensors outputs) {
  outputs.erase(std::remove_if(outputs.begin(), outputs.end(),
                               [](const at::Tensor& t) { return !t.defined(); }),
                outputs.end());
  return outputs;
}

std::string interpreter_reason(const std::string& what) {
  const std::string marker = "RuntimeError: ";
  const auto at = what.find(marker);
  if (at == std::string::npos)
    return core::first_line(what);
  return core::first_line(what.substr(at + marker.size()));
}

std::string made_at(const std::string& artifact, const std::string& made_from) {
  return artifact + " " + (made_from.empty() ? "another size" : results::case_key(made_from)) + " ";
}

void check_outputs(const results::Case& c, const Tensors* eager, const Tensors& outputs,
                   const std::string& what, results::StageInfo& info) {
  if (eager == nullptr)
    return;
  double worst = 0;
  const std::string mismatch = outputs_differ(*eager, outputs, worst);
  if (!mismatch.empty()) {
    // The trace itself reproduced eager (faithful_trace): a compiled graph that does not is the
    // compiler's doing (oneDNN Graph returns shape [1] for a scalar). A replayed CUDA graph runs
    // eager's own kernels: a difference there is an error.
    if (c.stage == results::Stage::graph)
      throw Error("stage " + core::name_of(c.stage) + ": " + what + " (" + mismatch + ")");
    throw CompilerFailed(what + " (" + mismatch + ")", what + " (" + mismatch + ")");
  }
  info.check = worst;
  info.tolerance = eager->empty() ? "exact" : tolerance_for(eager->front().scalar_type()).text();
}

// The outputs of `graph` run once without any fuser on `f`'s inputs; what the interpreter throws
// goes on.
static Tensors unfused_outputs(const results::Case& c, torch::jit::Graph& graph,
                               const TensorFunction& f) {
  FuserSettings settings(FuserSettings::Fuser::none);
  ScriptState plain{
      std::make_shared<torch::jit::GraphFunction>("opbench_trace", graph.copy(), nullptr),
      f,
      {},
      {}};
  f.restore();
  at::manual_seed(c.seed);
  return run_graph(plain);
}

FaithfulTrace faithful_trace(const results::Case& c, const TensorFunction& f,
                             const Tensors* eager) {
  std::shared_ptr<torch::jit::Graph> graph;
  double traced_in = 0;
  try {
    const Clock::time_point start = Clock::now();
    graph = trace(f);
    traced_in = seconds_since(start);
  } catch (const SkipCase&) {
    throw;
  } catch (const std::exception& e) {
    throw SkipCase("cannot be traced: " + interpreter_reason(e.what()));
  }
  if (eager != nullptr) {
    double worst = 0;
    const std::string mismatch = outputs_differ(*eager, unfused_outputs(c, *graph, f), worst);
    if (!mismatch.empty())
      throw SkipCase("the TorchScript trace does not reproduce the eager outputs: " + mismatch);
  }
  return {graph, traced_in};
}

namespace {

// The script-dynamic stage's function at a size other than the one it was traced at
// (`traced_from`): the trace may keep that size (a size the sample reads on the host is a constant
// of its trace), so it is run once unfused at these sizes first, in every repetition (whichever
// comes first finds a size it does not take, as a skip). SkipCase when it does not take them, or
// (`eager`: the checked repetition) does not reproduce eager there.
void check_other_size(const results::Case& c, torch::jit::Graph& graph, const TensorFunction& f,
                      const Tensors* eager, const std::string& traced_from) {
  const std::string made = made_at("the trace made at", traced_from);
  std::string mismatch;
  try {
    const Tensors outputs = unfused_outputs(c, graph, f);
    double worst = 0;
    if (eager != nullptr)
      mismatch = outputs_differ(*eager, outputs, worst);
  } catch (const std::exception& e) {
    throw SkipCase(made + "does not take these sizes: " + interpreter_reason(e.what()));
  }
  if (!mismatch.empty()) {
    throw SkipCase(made + "does not reproduce eager at these sizes (it keeps sizes the sample " +
                   "reads on the host): " + mismatch);
  }
}

// script, fused and script-dynamic. `eager`: the outputs to check against (nullptr: not checked,
// a later repetition).
Workload script_workload(const results::Case& c, TensorFunction f, const Tensors* eager) {
  const bool dynamic = c.stage == results::Stage::script_dynamic;
  const bool fused = c.stage == results::Stage::fused || dynamic;
  const bool cuda = device_of(c.device).is_cuda();
  if (dynamic && c.kind != results::Kind::sample) {
    throw SkipCase("script-dynamic runs one trace of a sample at all its sizes; an operator case "
                   "has its own sizes (use fused)");
  }
  if (fused && f.inputs.empty()) {
    // Seen: LibTorch 2.15's oneDNN Graph pass dereferences null on such a graph (arange) and
    // takes the whole process down.
    throw SkipCase("the computation has no tensor input: nothing for a fuser to fuse");
  }
  using Fuser = FuserSettings::Fuser;
  const Fuser fuser = !fused ? Fuser::none : cuda ? Fuser::tensorexpr : Fuser::onednn_graph;
  auto s = std::make_shared<ScriptState>();
  const FaithfulTrace traced = faithful_trace(c, f, eager);
  s->f = std::move(f);
  results::StageInfo info;
  info.runner = fuser == Fuser::none         ? "torchscript"
                : fuser == Fuser::tensorexpr ? "torchscript+tensorexpr"
                                             : "torchscript+onednn_graph";
  info.note = s->f.note;
  double compile = traced.seconds;
  if (dynamic) {
    info.runner += " (dynamic shapes)";
    const SharedScript shared = shared_script(c, *traced.graph, s->f.inputs, traced.seconds);
    if (shared.traced_from != c.case_id)
      check_other_size(c, *shared.function->graph(), s->f, eager, shared.traced_from);
    s->function = shared.function;
    compile = shared.traced_in;
  } else {
    s->function = std::make_shared<torch::jit::GraphFunction>("opbench_" + core::name_of(c.stage),
                                                              traced.graph, nullptr);
  }
  Tensors outputs;
  {
    // The profiling runs and the optimization happen in the first calls (for script-dynamic, the
    // first at a size this process's function has not run); a few more make sure the optimized
    // plan is the one the timed calls run.
    FuserSettings settings(fuser, dynamic);
    const int optimized_at = static_cast<int>(torch::jit::getNumProfiledRuns().load()) + 1;
    try {
      for (int i = 0; i < optimized_at + 2; ++i) {
        s->f.restore();
        at::manual_seed(c.seed);
        const Clock::time_point start = Clock::now();
        outputs = run_graph(*s);
        // The compile time: the calls until the optimized graph has run once (the optimization
        // happens in that call), the restores between them left out.
        if (i < optimized_at) {
          settle(device_of(c.device));
          compile += seconds_since(start);
        }
      }
      info.compile_time = compile;
    } catch (const std::exception& e) {
      // The graph ran unoptimized above (faithful_trace): what failed is the optimized (fused)
      // graph, the compiler's work.
      throw CompilerFailed("the " + info.runner + " graph failed: " + interpreter_reason(e.what()),
                           e.what());
    }
    GraphCounts counts;
    if (const auto optimized = torch::jit::lastExecutedOptimizedGraph())
      count_nodes(optimized->block(), counts);
    info.graph_ops = counts.ops;
    info.fusion_groups = counts.groups;
    info.fused_ops = counts.fused_ops;
    if (fused && counts.groups == 0) {
      const std::string nothing = std::string("the fuser (") +
                                  (fuser == Fuser::tensorexpr ? "TensorExpr" : "oneDNN Graph") +
                                  ") found nothing to fuse in the " + std::to_string(counts.ops) +
                                  " operator nodes of this graph";
      // A single operator: fused would be script again, so it is not timed. A sample's graph is
      // timed all the same, saying so (its row of the stage table shows what the fuser did not do).
      if (c.kind != results::Kind::sample)
        throw SkipCase(nothing + ": fused would time script again");
      info.note = nothing + ": this is the script graph timed again" +
                  (info.note.empty() ? "" : "; " + info.note);
    }
  }
  check_outputs(c, eager, outputs, "its outputs differ from eager's", info);
  Workload w;
  w.input_bytes = tensor_bytes(s->f.inputs);
  w.call = [s] {
    s->stack.assign(s->f.inputs.begin(), s->f.inputs.end());
    s->function->run(s->stack);
    s->stack.swap(s->previous); // the previous call's outputs stay alive while the next runs
  };
  w.release = [s] {
    s->stack.clear();
    s->previous.clear();
  };
  w.work_call = [s] { (void)s->f.body(s->f.inputs); };
  w.restore = s->f.restore;
  w.call_path = fused ? results::CallPath::fused : results::CallPath::script;
  w.stage_info = info;
  w.state = s;
  return w;
}

#if OPBENCH_WITH_CUDA
Workload graph_workload(const results::Case& c, TensorFunction f, const Tensors* eager) {
  struct State {
    TensorFunction f;
    Tensors outputs;
    std::unique_ptr<at::cuda::CUDAGraph> graph;
  };
  auto s = std::make_shared<State>();
  s->f = std::move(f);
  try {
    s->graph = capture_graph(
        device_of(c.device), [&s] { s->outputs = defined_only(s->f.body(s->f.inputs)); }, 1);
  } catch (const std::exception& e) {
    throw SkipCase("the eager calls cannot be captured in a CUDA graph: " +
                   core::first_line(e.what()));
  }
  s->f.restore();
  s->graph->replay();
  c10::cuda::device_synchronize();
  results::StageInfo info;
  info.runner = "cuda_graph";
  info.note = s->f.note;
  check_outputs(c, eager, s->outputs, "the replayed outputs differ from eager's", info);
  Workload w;
  w.input_bytes = tensor_bytes(s->f.inputs);
  w.call = [s] { s->graph->replay(); };
  w.work_call = [s] { (void)s->f.body(s->f.inputs); };
  w.restore = s->f.restore;
  w.call_path = results::CallPath::graph;
  w.not_capturable = "the graph stage is one CUDA graph replay already (timed back to back)";
  w.stage_info = info;
  w.state = s;
  return w;
}
#endif

} // namespace

Workload staged_workload(const results::Case& c, TensorFunction f, bool check) {
  if (c.direction != results::Direction::forward)
    throw SkipCase("stages time the forward direction only");
  at::NoGradGuard no_grad;
  Tensors eager;
  if (check) {
    eager = seeded_call(c, f);
    double worst = 0;
    const std::string again = outputs_differ(eager, seeded_call(c, f), worst);
    if (!again.empty()) {
      throw SkipCase("two eager calls with the same seed give different outputs (" + again +
                     "): no stage can be checked against eager");
    }
  }
  const Tensors* reference = check ? &eager : nullptr;
  if (c.stage == results::Stage::script || c.stage == results::Stage::fused ||
      c.stage == results::Stage::script_dynamic)
    return script_workload(c, std::move(f), reference);
  if (c.stage == results::Stage::inductor || c.stage == results::Stage::inductor_dynamic)
    return inductor_workload(c, std::move(f), reference);
  if (c.stage == results::Stage::graph) {
#if OPBENCH_WITH_CUDA
    if (device_of(c.device).is_cuda())
      return graph_workload(c, std::move(f), reference);
#endif
    throw SkipCase("the graph stage captures CUDA calls: it runs on CUDA devices only");
  }
  throw Error("unknown stage '" + core::name_of(c.stage) + "'");
}

} // namespace opbench::stages
