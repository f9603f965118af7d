// What a TorchScript graph runs on its fast path, counted for a stage's result (StageInfo's
// graph_ops, fusion_groups, fused_ops). Internal to stages/.
#pragma once

#include <torch/csrc/jit/ir/ir.h>

#include <cstdint>

namespace opbench::stages {

struct GraphCounts {
  std::int64_t ops = 0, groups = 0, fused_ops = 0;
};

// Operator nodes of `block` outside fusion groups, the groups, and the operator nodes inside
// them; behind a guard (the executor's type check or a fuser's own), the optimized block only.
// Adds to `counts`.
void count_nodes(const torch::jit::Block* block, GraphCounts& counts);

} // namespace opbench::stages
