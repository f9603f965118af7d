#pragma once
// Stages (results::Case::stage): the same forward computation run in other ways than eager ATen
// calls, each checked against eager before it is timed. The one home of every compiler path:
//   script  the computation traced once (LibTorch's C++ tracer, so no second copy of a sample is
//           written) into a TorchScript graph, run by the graph executor with every fuser off:
//           what the interpreter costs or saves over C++ dispatch;
//   fused   that graph with LibTorch's fuser on, after its profiling runs: oneDNN Graph on the
//           CPU (the TensorExpr fuser needs an LLVM build, which the PyPI wheel is not: there it
//           throws "LLVM Backend not found"), the TensorExpr fuser on CUDA; a graph in which the
//           fuser finds nothing to fuse is skipped, saying so (it would time `script` again);
//   graph   (CUDA) the eager calls captured once in a CUDA graph, one replay per call;
//   inductor  the trace converted to an ExportedProgram and compiled ahead of time by
//           TorchInductor (scripts/aoti_compile.py, with the Python torch of LibTorch's version),
//           the package cached and run by LibTorch's AOTIModelPackageLoader;
//   script-dynamic  one trace of a sample (its first size run, kept in the cache:
//           compiled_artifacts.hpp) run by one TorchScript function at every size, the fuser of
//           `fused` with the executor's fusion strategy dynamic (LongTail-Bench's S4);
//   inductor-dynamic  the same exported with symbolic dimensions: one package for every size
//           of a sample, compiled from the first size run and checked against eager at each
//           (a size the package or the trace keeps fixed: skipped, saying so; a package that
//           would end the process at a size is tried in a process of its own first).
// The dynamic stages run samples only. script, fused, script-dynamic and graph are made in
// stages.cpp, inductor and inductor-dynamic in inductor_stage.cpp; another compiler path is one
// more maker beside them (src/stages/). exec/ makes a case's TensorFunction and calls
// staged_workload.

#include <ATen/ATen.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "opbench/measure/output_check.hpp"
#include "opbench/measure/workload.hpp"

namespace opbench::stages {

// A forward computation as a function of its tensors: what a stage traces or captures.
struct TensorFunction {
  std::vector<at::Tensor> inputs;
  // Outputs of one call; undefined tensors are dropped before any check.
  std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)> body;
  std::shared_ptr<void> keep; // whatever `body` needs alive
  measure::Restore restore;   // puts back the inputs `body` writes (an in-place operator's)
  std::string note;           // said in the result (e.g. inputs read on the host are baked in)
};

// The workload of `c` at its stage (not "eager"), made from its computation. With `check` (the
// case's first repetition) its outputs are held to eager's first: throws measure::SkipCase when the
// stage cannot run this case faithfully (a trace that does not reproduce eager, random outputs),
// and Error when a stage's outputs differ from eager's. Always throws measure::SkipCase for nothing
// to fuse in an operator's graph and for a stage the device cannot run.
measure::Workload staged_workload(const results::Case& c, TensorFunction function,
                                  bool check = true);

} // namespace opbench::stages
