#pragma once
// A dynamic stage made once for a sample and then called at each of its sizes in turn, as a model
// in service meets the sizes it is given: what `opbench replay` times (replay/replay.hpp,
// docs/replay.md). Unlike staged_workload, making it never calls it (only eager and the plain
// trace run once, to check the trace): the first call at each size is the caller's to time, with
// whatever the stage does there (the graph executor's profiling run, its optimization, a fallback
// after a guard fails).

#include <ATen/ATen.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "opbench/results/case.hpp"
#include "opbench/stages/stages.hpp"

namespace opbench::stages {

struct SizeFreeStage {
  // Runs the stage on `inputs`, another size's made as the first size's were (same dtypes,
  // devices and ranks); its outputs without undefined tensors. The device is not waited for.
  std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)> call;
  // "" when `call` may be given `inputs`, else why not, found without calling the stage in this
  // process: an inductor-dynamic package is tried in a process of its own at a size it was not
  // compiled for (its kernels' bounds checks can end the process that runs them). Always "" for
  // script-dynamic, whose executor falls back when a guard fails.
  std::function<std::string(const std::vector<at::Tensor>&)> refuses;
  // script-dynamic: the optimized plans the graph executor holds (0 before its first
  // optimization; the profiling runs come first), each fallback's counted in: a fallback is
  // optimized only after a guard of the plan before it failed, so a plan past the first is a
  // recompile for sizes the first did not take. A call that fails a guard and runs a fallback
  // optimized before adds none (LibTorch does not say when a guard fails). Empty for
  // inductor-dynamic: a package is compiled once, ahead of time.
  std::function<int()> plans;
  std::string runner;         // as results::StageInfo::runner
  std::string made_from;      // the case id the trace or package was made at
  double made_in = 0;         // seconds to make it: the trace (cached: its recorded time), the
                              // package's compile (cached: its recorded time) and its load
  bool cached = false;        // the trace or package came from the cache
  std::shared_ptr<void> keep; // what `call` needs alive (and the fuser settings it runs under)
};

// The stage of `first` (a forward sample case at stage script-dynamic or inductor-dynamic), made
// from `f`, its computation at its size. The trace is held to eager on `f`'s inputs first (as
// staged_workload's check). Throws measure::SkipCase (another stage or kind; a computation that
// cannot be traced or compiled faithfully), measure::CompilerFailed and Error as staged_workload.
SizeFreeStage size_free_stage(const results::Case& first, const TensorFunction& f);

// A whole torch.export program (saved by torch.export.save at `program`) compiled ahead of time
// by AOTInductor with its symbolic dimensions (aoti_package.hpp's program_package, cached), loaded
// once: `opbench replay`'s inductor-dynamic stage of a program extracted by `extract --exported`.
// `refuses` probes a size in a process of its own, as for a sample's package. Its outputs cannot
// be held to eager here (LibTorch has no eager of an exported program). Throws as
// program_package.
SizeFreeStage program_stage(const std::string& program);

} // namespace opbench::stages
