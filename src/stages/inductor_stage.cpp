// The inductor and inductor-dynamic stages (stages.hpp): the trace compiled ahead of time by
// TorchInductor (aoti_package.hpp), run by LibTorch's AOTIModelPackageLoader.
#include <ATen/core/grad_mode.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/version.h>

#include <chrono>

#include "aoti_package.hpp"
#include "graph_counts.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/machine/devices.hpp"
#include "opbench/measure/loop.hpp"
#include "opbench/results/case.hpp"
#include "stage_parts.hpp"

namespace opbench::stages {

using measure::CompilerFailed;
using measure::seconds_since;
using measure::SkipCase;
using measure::tensor_bytes;
using measure::Workload;

void require_package_compiler() {
  const std::string python = compiler_python();
  const std::string version = python_torch_version(python);
  if (version.empty()) {
    throw SkipCase("the inductor stage compiles with Python's torch, and " + python + " " +
                   OPBENCH_AOTI_SCRIPT + " did not run (set OPBENCH_PYTHON)");
  }
  if (release_of(version) != release_of(TORCH_VERSION)) {
    throw SkipCase("the Python torch (" + python + ") is " + version + " and this LibTorch " +
                   TORCH_VERSION +
                   ": a package must be compiled by the same version (set OPBENCH_PYTHON)");
  }
}

void require_no_random_draws(const torch::jit::Graph& graph) {
  for (const torch::jit::Node* node : graph.nodes()) {
    if (node->isNondeterministic()) {
      throw SkipCase(std::string("draws random numbers (") + node->kind().toQualString() +
                     "): Inductor's generator is not eager's, so its outputs cannot be checked");
    }
  }
}

// `inductor` (a package for these sizes) and `inductor-dynamic` (one package for every size of a
// sample, compiled from the first with symbolic dimensions, then checked at each size).
Workload inductor_workload(const results::Case& c, TensorFunction f, const Tensors* eager) {
  const bool dynamic = c.stage == results::Stage::inductor_dynamic;
  if (dynamic && c.kind != results::Kind::sample) {
    throw SkipCase("inductor-dynamic compiles a sample once for all its sizes; an operator case "
                   "has its own sizes (use inductor)");
  }
  if (f.inputs.empty())
    throw SkipCase("the computation has no tensor input: an exported program needs one");
  require_package_compiler();
  const FaithfulTrace traced = faithful_trace(c, f, eager);
  const std::shared_ptr<torch::jit::Graph>& graph = traced.graph;
  require_no_random_draws(*graph);
  struct State {
    TensorFunction f;
    std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
    Tensors previous;
  };
  auto s = std::make_shared<State>();
  s->f = std::move(f);
  const AotiPackage package = aoti_package(c, *graph, s->f.inputs, dynamic);
  // A dynamic package made from another size: it may have kept that size where the trace does
  // (a size the sample reads on the host is a constant of its trace).
  const bool other_size = dynamic && package.compiled_for != c.case_id;
  const std::string made_for = made_at("the package compiled for", package.compiled_for);
  const Clock::time_point load_start = Clock::now();
  try {
    s->loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(package.path);
  } catch (const std::exception& e) {
    throw Error("stage inductor: cannot load " + package.path + ": " + core::first_line(e.what()));
  }
  results::StageInfo info;
  info.runner = dynamic ? "aotinductor (dynamic shapes)" : "aotinductor";
  if (package.compile_time)
    info.compile_time = traced.seconds + *package.compile_time + seconds_since(load_start);
  info.compile_cached = package.cached;
  info.note = s->f.note;
  GraphCounts counts;
  count_nodes(graph->block(), counts);
  info.graph_ops = counts.ops;
  s->f.restore();
  if (other_size) {
    // Its kernels' bounds checks can end the process that runs them: tried elsewhere first.
    if (const std::string failed = aoti_probe(package, s->f.inputs); !failed.empty()) {
      throw SkipCase(made_for + "does not take these sizes: " + failed);
    }
  }
  at::manual_seed(c.seed);
  Tensors outputs;
  try {
    outputs = s->loader->run(s->f.inputs);
  } catch (const std::exception& e) {
    if (!other_size)
      throw;
    throw SkipCase(made_for + "does not take these sizes: " + core::first_line(e.what()));
  }
  try {
    check_outputs(c, eager, outputs, "the package's outputs differ from eager's", info);
  } catch (const CompilerFailed& e) {
    if (!other_size)
      throw;
    throw SkipCase(made_for +
                   "does not reproduce eager at these sizes (the trace keeps sizes the " +
                   "sample reads on the host): " + core::first_line(e.what()));
  }
  Workload w;
  w.input_bytes = tensor_bytes(s->f.inputs);
  w.call = [s] {
    s->previous = s->loader->run(s->f.inputs);
  }; // the previous outputs live until then
  w.release = [s] { s->previous.clear(); };
  w.work_call = [s] { (void)s->f.body(s->f.inputs); };
  w.restore = s->f.restore;
  w.call_path = results::CallPath::inductor;
  w.stage_info = info;
  w.state = s;
  return w;
}

} // namespace opbench::stages
