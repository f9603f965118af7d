// The dynamic stages made once and called at every size (size_free.hpp): script-dynamic's one
// TorchScript function, inductor-dynamic's one package.
#include "opbench/stages/size_free.hpp"

#include <ATen/core/grad_mode.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/runtime/graph_executor.h>

#include "aoti_package.hpp"
#include "compiled_artifacts.hpp"
#include "fuser_settings.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/machine/devices.hpp"
#include "opbench/measure/loop.hpp"
#include "stage_parts.hpp"

namespace opbench::stages {

using measure::seconds_since;
using measure::SkipCase;

namespace {

int plans_in(const torch::jit::Block* block, int depth);

// The optimized plans `function`'s graph executor holds, its fallbacks' (the functions a guard
// that fails calls, each with an executor of its own) counted in: 0 before its first
// optimization (LibTorch's profiling executor asserts when asked for a plan it has not made).
int optimized_plans(torch::jit::GraphFunction& function, int depth = 0) {
  constexpr int k_deepest = 32; // fallbacks within fallbacks: the fusion strategy's depth, 12
  if (depth > k_deepest)
    return 0;
  torch::jit::GraphExecutorState state;
  try {
    state = function.getDebugState();
  } catch (const c10::Error&) {
    return 0;
  }
  int plans = 0;
  for (const auto& entry : state.execution_plans) {
    ++plans;
    if (entry.second.graph)
      plans += plans_in(entry.second.graph->block(), depth);
  }
  return plans;
}

int plans_in(const torch::jit::Block* block, int depth) {
  int plans = 0;
  for (const torch::jit::Node* node : block->nodes()) {
    if (node->kind() == c10::prim::CallFunction) {
      if (const auto type = node->input(0)->type()->cast<c10::FunctionType>()) {
        if (torch::jit::GraphFunction* fallback = torch::jit::tryToGraphFunction(*type->function()))
          plans += optimized_plans(*fallback, depth + 1);
      }
    }
    for (const torch::jit::Block* inner : node->blocks())
      plans += plans_in(inner, depth);
  }
  return plans;
}

SizeFreeStage script_dynamic(const results::Case& first, const TensorFunction& f,
                             const Tensors& eager) {
  using Fuser = FuserSettings::Fuser;
  const bool cuda = machine::device_of(first.device).is_cuda();
  const FaithfulTrace traced = faithful_trace(first, f, &eager);
  const SharedScript shared = shared_script(first, *traced.graph, f.inputs, traced.seconds);
  struct State {
    std::shared_ptr<torch::jit::GraphFunction> function;
    // While the stage lives: the executor profiles and optimizes at any call (a new size, a
    // guard that fails), always with script-dynamic's settings.
    FuserSettings settings;
    State(std::shared_ptr<torch::jit::GraphFunction> fn, Fuser fuser)
        : function(std::move(fn)), settings(fuser, /*dynamic_shapes=*/true) {}
  };
  auto s = std::make_shared<State>(shared.function, cuda ? Fuser::tensorexpr : Fuser::onednn_graph);
  SizeFreeStage stage;
  stage.runner = cuda ? "torchscript+tensorexpr (dynamic shapes)"
                      : "torchscript+onednn_graph (dynamic shapes)";
  stage.made_from = shared.traced_from;
  stage.made_in = shared.traced_in;
  stage.call = [s](const Tensors& inputs) {
    torch::jit::Stack stack(inputs.begin(), inputs.end());
    s->function->run(stack);
    Tensors out;
    for (const auto& v : stack.at(0).toTupleRef().elements())
      out.push_back(v.toTensor());
    return defined_only(std::move(out));
  };
  stage.refuses = [](const Tensors&) { return std::string(); };
  stage.plans = [s] { return optimized_plans(*s->function); };
  stage.keep = s;
  return stage;
}

// The stage that calls `package`, loaded here; `traced` (seconds) adds to its making.
SizeFreeStage package_stage(const AotiPackage& package, const std::string& runner, double traced) {
  struct State {
    AotiPackage package;
    std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
  };
  auto s = std::make_shared<State>();
  s->package = package;
  const Clock::time_point load_start = Clock::now();
  try {
    s->loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(package.path);
  } catch (const std::exception& e) {
    throw Error("stage inductor-dynamic: cannot load " + package.path + ": " +
                core::first_line(e.what()));
  }
  SizeFreeStage stage;
  stage.runner = runner;
  stage.made_from = package.compiled_for;
  stage.made_in = traced + package.compile_time.value_or(0) + seconds_since(load_start);
  stage.cached = package.cached;
  stage.call = [s](const Tensors& inputs) { return defined_only(s->loader->run(inputs)); };
  stage.refuses = [s](const Tensors& inputs) { return aoti_probe(s->package, inputs); };
  stage.keep = s;
  return stage;
}

SizeFreeStage inductor_dynamic(const results::Case& first, const TensorFunction& f,
                               const Tensors& eager) {
  if (f.inputs.empty())
    throw SkipCase("the computation has no tensor input: an exported program needs one");
  require_package_compiler();
  const FaithfulTrace traced = faithful_trace(first, f, &eager);
  require_no_random_draws(*traced.graph);
  const AotiPackage package = aoti_package(first, *traced.graph, f.inputs, /*dynamic=*/true);
  SizeFreeStage stage = package_stage(package, "aotinductor (dynamic shapes)", traced.seconds);
  // The sizes the package was compiled at need no probe.
  std::vector<std::vector<std::int64_t>> compiled_at;
  if (package.compiled_for == first.case_id) {
    for (const at::Tensor& t : f.inputs)
      compiled_at.push_back(t.sizes().vec());
  }
  stage.refuses = [probe = stage.refuses, compiled_at](const Tensors& inputs) {
    std::vector<std::vector<std::int64_t>> sizes;
    for (const at::Tensor& t : inputs)
      sizes.push_back(t.sizes().vec());
    return sizes == compiled_at ? std::string() : probe(inputs);
  };
  return stage;
}

} // namespace

SizeFreeStage program_stage(const std::string& program) {
  return package_stage(program_package(program),
                       "aotinductor (the exported program, dynamic shapes)", 0);
}

SizeFreeStage size_free_stage(const results::Case& first, const TensorFunction& f) {
  if (first.kind != results::Kind::sample)
    throw SkipCase("a dynamic stage runs one trace of a sample at all its sizes; an operator case "
                   "has its own sizes");
  if (first.direction != results::Direction::forward)
    throw SkipCase("stages time the forward direction only");
  at::NoGradGuard no_grad;
  const Tensors eager = seeded_call(first, f);
  if (first.stage == results::Stage::script_dynamic)
    return script_dynamic(first, f, eager);
  if (first.stage == results::Stage::inductor_dynamic)
    return inductor_dynamic(first, f, eager);
  throw SkipCase("stage " + core::name_of(first.stage) +
                 " is made for one size; a replay runs script-dynamic, inductor-dynamic or eager");
}

} // namespace opbench::stages
