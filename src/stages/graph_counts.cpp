#include "graph_counts.hpp"

#include <string_view>

#include "opbench/core/strings.hpp"

namespace opbench::stages {
namespace {

bool is_fusion_group(const torch::jit::Node* node) {
  const std::string_view kind = node->kind().toQualString();
  return kind.find("FusionGroup") != std::string_view::npos ||
         kind.find("TensorExprGroup") != std::string_view::npos;
}

bool counts_as_op(const torch::jit::Node* node) {
  const std::string_view kind = node->kind().toQualString();
  return !core::starts_with(kind, "prim::") || kind == "prim::CallFunction";
}

// A guard's condition: the executor checks the profiled types (or a fuser its own guard) and
// runs the optimized block, else a fallback.
bool is_guard(const torch::jit::Value* condition) {
  const std::string_view kind = condition->node()->kind().toQualString();
  return kind == "prim::TypeCheck" || kind == "prim::RequiresGradCheck" ||
         kind.find("Guard") != std::string_view::npos;
}

} // namespace

// What the executed graph runs on its fast path: operator nodes outside fusion groups, the groups,
// and the operator nodes inside them (fallback blocks behind a guard are not counted).
void count_nodes(const torch::jit::Block* block, GraphCounts& counts) {
  for (const torch::jit::Node* node : block->nodes()) {
    if (is_fusion_group(node)) {
      ++counts.groups;
      if (node->hasAttribute(torch::jit::attr::Subgraph)) {
        for (const torch::jit::Node* inner : node->g(torch::jit::attr::Subgraph)->nodes()) {
          if (counts_as_op(inner))
            ++counts.fused_ops;
        }
      }
      continue;
    }
    if (node->kind() == c10::prim::If && !node->inputs().empty() && is_guard(node->input(0))) {
      count_nodes(node->blocks()[0], counts);
      continue;
    }
    if (counts_as_op(node))
      ++counts.ops;
    for (const torch::jit::Block* inner : node->blocks())
      count_nodes(inner, counts);
  }
}

} // namespace opbench::stages
