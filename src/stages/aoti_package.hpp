#pragma once
// The inductor stage's compiler side: the case's TorchScript trace exported and compiled ahead of
// time by TorchInductor (scripts/aoti_compile.py, run by the set-up's Python, whose torch must be
// this LibTorch's version) into a package cached by case, trace, inputs and LibTorch version
// (docs/stages.md). LibTorch's AOTIModelPackageLoader runs it (stages.cpp).

#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/ir.h>

#include <optional>
#include <string>
#include <vector>

#include "opbench/results/case.hpp"
#include "opbench/stages/python.hpp"

namespace opbench::stages {

// The package of `graph` on `inputs` (a .pt2 path): from the cache ($OPBENCH_CACHE_DIR, else
// $XDG_CACHE_HOME/opbench, else ~/.cache/opbench; then aoti/), else compiled into it; several
// processes may compile one at once. SkipCase when the trace cannot be exported, Error naming the
// compiler's messages when it fails.
// `dynamic`: one package for every size of the case's sample (same name, parameters, dtypes,
// devices and input ranks), compiled from the first size asked for with symbolic dimensions
// (scripts/aoti_compile.py --dynamic).
struct AotiPackage {
  std::string path;         // the .pt2 file
  std::string compiled_for; // the case id it was compiled from ("" when not recorded)
  // Seconds the compiler took to make it (Python's start included); none for a cached package
  // made before that was recorded (beside the package, in <package>.json).
  std::optional<double> compile_time;
  bool cached = false; // taken from the cache, not compiled by this call
};
AotiPackage aoti_package(const results::Case& c, torch::jit::Graph& graph,
                         const std::vector<at::Tensor>& inputs, bool dynamic = false);

// The package of a torch.export program saved at `program` (torch.export.save), compiled as it is
// (scripts/aoti_compile.py exported: its symbolic dimensions and their ranges kept), cached by the
// file's bytes and LibTorch's version. Throws SkipCase when torch cannot read the file, and
// CompilerFailed when AOTInductor fails.
AotiPackage program_package(const std::string& program);

// Runs `package` once on `inputs` in a Python process of its own (scripts/aoti_compile.py probe):
// "" when it ran, else why not. For a dynamic package at sizes it was not compiled for: a
// generated kernel's bounds check there can end the process that runs it (std::terminate inside
// an OpenMP region), and that must not be opbench's. Remembered beside the package, by the
// inputs' dtypes, devices, sizes and strides.
std::string aoti_probe(const AotiPackage& package, const std::vector<at::Tensor>& inputs);

} // namespace opbench::stages
