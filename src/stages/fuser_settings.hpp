// Which TorchScript fuser the graph executor optimizes with, set for a scope (the script and
// fused stages, stages/stages.cpp). Internal to stages/.
#pragma once

#include <ATen/Config.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/codegen/fuser/interface.h>
#include <torch/csrc/jit/codegen/onednn/interface.h>
#include <torch/csrc/jit/passes/tensorexpr_fuser.h>

#include "opbench/measure/workload.hpp"

namespace opbench::stages {

// Which fuser a graph is optimized with, and with `dynamic_shapes` the executor's fusion strategy
// (torch::jit::setFusionStrategy) made dynamic: fused kernels for symbolic sizes, where the fuser
// makes them (TensorExpr), from the first specialization on. Set while the executor profiles and
// optimizes the graph (the first calls at a size); the optimized plan keeps what it was made
// with. Restores the previous settings when it ends.
class FuserSettings {
public:
  enum class Fuser { none, onednn_graph, tensorexpr };

  explicit FuserSettings(Fuser fuser, bool dynamic_shapes = false)
      : texpr_(torch::jit::tensorExprFuserEnabled()), cpu_(torch::jit::canFuseOnCPU()),
        gpu_(torch::jit::canFuseOnGPU()), llga_(torch::jit::RegisterLlgaFuseGraph::isEnabled()),
        strategy_(torch::jit::getFusionStrategy()) {
    if (dynamic_shapes) {
      // As many specializations as the executor's default (2 static, then 10 dynamic), all
      // dynamic.
      torch::jit::FusionStrategy dynamic{{torch::jit::FusionBehavior::DYNAMIC, 12}};
      torch::jit::setFusionStrategy(dynamic);
    }
    torch::jit::setTensorExprFuserEnabled(fuser == Fuser::tensorexpr);
    torch::jit::overrideCanFuseOnCPU(false); // the TensorExpr fuser's CPU path needs LLVM
    torch::jit::overrideCanFuseOnGPU(fuser == Fuser::tensorexpr);
    set_llga(fuser == Fuser::onednn_graph);
  }
  ~FuserSettings() {
    torch::jit::setTensorExprFuserEnabled(texpr_);
    torch::jit::overrideCanFuseOnCPU(cpu_);
    torch::jit::overrideCanFuseOnGPU(gpu_);
    set_llga(llga_);
    torch::jit::setFusionStrategy(strategy_);
  }
  FuserSettings(const FuserSettings&) = delete;
  FuserSettings& operator=(const FuserSettings&) = delete;

private:
  static void set_llga(bool on) {
#if AT_MKLDNN_ENABLED()
    torch::jit::RegisterLlgaFuseGraph::setEnabled(on);
#else
    if (on)
      throw measure::SkipCase("this LibTorch is built without oneDNN: no CPU fuser");
#endif
  }
  bool texpr_, cpu_, gpu_, llga_;
  torch::jit::FusionStrategy strategy_;
};

} // namespace opbench::stages
