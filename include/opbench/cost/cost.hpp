#pragma once
// The work a call does: FLOPs by a stated rule per operator family, and bytes moved as a stated
// lower bound (every input tensor read once plus every output tensor written once; outputs that
// alias an input, views and in-place results, are not counted again). Calls that move no data
// count 0 bytes: a view (every output of its schema aliases an input without writing it: `t`,
// `split`, `view_as`, `expand`) and a factory that fills nothing (`empty`, `empty_like`,
// `empty_strided`, `new_empty`). Calls that read what an index names read that, not the whole
// table: `index_select`, `gather`, `take`, `embedding` count 2 * bytes(out) + bytes(index);
// `embedding_bag` the indexed rows of its weight, its output and its index tensors; `diag` of a
// matrix 2 * bytes(out). A `*_like` factory reads no data of its `self` (only its shape): its
// output's bytes. FLOPs are absent where no rule is known: never guessed. Pure functions
// of shapes; no LibTorch.
//
// Rules (forward; a multiply-add is 2 FLOPs):
//   mm (M,K)x(K,N): 2MNK; bmm: 2BMNK; addmm: 2MNK + MN; baddbmm/addbmm: 2BMNK + MN per output
//   element added; matmul/linear: 2 * numel(out) * K (+ numel(out) with a bias); mv: 2MN;
//   dot/vdot: 2N; outer: MN.
//   convolution (any dims): 2 * numel(out) * (C_in / groups) * prod(kernel) (+ numel(out) with a
//   bias); transposed convolution: 2 * numel(in) * (C_out / groups) * prod(kernel) (+ numel(out)
//   with a bias). scaled_dot_product_attention: 2 * B * L * S * (E + Ev) (QK^T and the product with
//   V). elementwise (listed in elementwise_ops()): 1 per output element. reductions (listed in
//   reduction_ops()): 1 per input element. softmax / log_softmax: 4 per input element (max,
//   subtract-and-exp, sum, divide). batch_norm (inference): 2 per element; layer_norm / group_norm
//   / instance_norm: 5 per element.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"

namespace opbench::cost {

struct TensorInfo {
  std::string argument; // schema argument name; "" for outputs
  std::vector<std::int64_t> shape;
  std::int64_t element_bytes = 4;

  std::int64_t numel() const;
  std::int64_t bytes() const { return numel() * element_bytes; }
};

struct CallShapes {
  std::string op;                  // resolved operator, "aten::conv2d" or "aten::add.Tensor"
  Json arguments = Json::object(); // every bound argument (for stride, groups, transposed, ...)
  std::vector<TensorInfo> inputs;  // every tensor argument (list elements too), in order
  std::vector<TensorInfo> outputs; // outputs that do not alias an input
  // Every output of the schema is a view of an input (an alias annotation without a write,
  // `Tensor(a) self -> Tensor(a)`): the call reads and writes no tensor data.
  bool view = false;
};

struct Cost {
  std::optional<double> flops;
  double bytes = 0;       // lower bound
  std::string flops_rule; // which rule gave the FLOPs ("" when absent)
};

Cost estimate(const CallShapes& call);

// Operator base names ("add", "relu", ...) counted as elementwise / reductions.
const std::vector<std::string>& elementwise_ops();
const std::vector<std::string>& reduction_ops();

} // namespace opbench::cost
