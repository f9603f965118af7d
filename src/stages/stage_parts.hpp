// What the makers of the stages' workloads share (stages.cpp: script, fused, script-dynamic,
// graph; inductor_stage.cpp: inductor, inductor-dynamic). Internal to stages/.
#pragma once

#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/ir.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "opbench/measure/workload.hpp"
#include "opbench/results/case.hpp"
#include "opbench/stages/stages.hpp"

namespace opbench::stages {

using Tensors = std::vector<at::Tensor>;
using Clock = std::chrono::steady_clock;

// Waits for `device`'s queued work (CUDA), so that a host clock read next covers it.
void settle(const at::Device& device);

// `outputs` without the undefined tensors.
Tensors defined_only(Tensors outputs);

// One call of the eager computation with the default generators seeded, so that a computation
// that draws random numbers draws the same ones each time (and a stage that draws them in the
// same order matches it). Its inputs are restored first, and its outputs are copies: an in-place
// operator returns the input it wrote, which the next call writes again.
Tensors seeded_call(const results::Case& c, const TensorFunction& f);

// What a graph's failure says, without the interpreter's preamble ("The following operation
// failed in the TorchScript interpreter." and its traceback): the RuntimeError's own line.
std::string interpreter_reason(const std::string& what);

// How a skip names the artifact made at another size than this case's: `artifact` ("the trace
// made at", "the package compiled for"), then the size it was made at (the key of `made_from`,
// a case id; "another size" where that is not known), then a space.
std::string made_at(const std::string& artifact, const std::string& made_from);

// Holds a stage's outputs to eager's (`eager` nullptr: a later repetition, not checked): a
// mismatch is the compiler's failure (CompilerFailed; for the graph stage, which replays eager's
// own kernels, an Error); the check and its tolerance go into `info`.
void check_outputs(const results::Case& c, const Tensors* eager, const Tensors& outputs,
                   const std::string& what, results::StageInfo& info);

// The computation traced into a graph (inputs `f.inputs`, one tuple of the defined outputs), and
// with `eager` (the first repetition) run once as traced, without any fuser, on the very inputs it
// was made from: a trace that does not give eager's outputs cannot be timed as this case
// (LongTail-Bench leaves such cells empty too). SkipCase says why.
struct FaithfulTrace {
  std::shared_ptr<torch::jit::Graph> graph;
  double seconds = 0; // the trace's time, not its check against eager
};
FaithfulTrace faithful_trace(const results::Case& c, const TensorFunction& f, const Tensors* eager);

// Before a package is made (inductor_stage.cpp): a Python whose torch is this LibTorch's version
// to compile it, and a trace that draws no random numbers (Inductor's generator is not eager's,
// so its outputs could not be checked). Throws SkipCase saying which is missing.
void require_package_compiler();
void require_no_random_draws(const torch::jit::Graph& graph);

// The inductor and inductor-dynamic stages (inductor_stage.cpp). `eager`: the outputs to check
// against (nullptr: not checked, a later repetition).
measure::Workload inductor_workload(const results::Case& c, TensorFunction f, const Tensors* eager);

} // namespace opbench::stages
