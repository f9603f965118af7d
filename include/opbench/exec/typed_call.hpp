#pragma once
// The unboxed fast path. A boxed call (OperatorHandle::callBoxed) copies every argument into a
// stack and unboxes it again: on a 1-element add that is ~5% of the call. For the common
// signatures below, opbench calls the operator through its typed handle instead, exactly as
// LibTorch's own at::add does (same dispatcher path, same kernels); any other schema is called
// boxed. Results record which path ran ("typed" or "boxed").
//
// Signatures (one Tensor returned): (Tensor), (Tensor, Tensor), (Tensor, Scalar),
// (Tensor, Tensor, Scalar), (Tensor, Scalar, Scalar), (Tensor, int, ScalarType?),
// (Tensor, int, Tensor) and (Tensor, int, Tensor, bool) (index_select, gather),
// (Tensor, Tensor, Tensor, Scalar, Scalar); (Tensor, int), (Tensor, int, int), (Tensor, int, int,
// int), (Tensor, int[]), (Tensor, SymInt[]), (Tensor, SymInt[], bool), (Tensor, SymInt), (Tensor,
// int, SymInt), (Tensor, int, SymInt, SymInt) (the small shape and view operators: transpose,
// flatten, diagonal, permute, reshape, expand, tril, select, narrow ...), (Tensor[]) and (Tensor[],
// int) (cat, stack, hstack ...), layer_norm's, slice.Tensor's, as_strided's, and the factories'
// (scalar_tensor, empty, empty_like and the other *_like, empty_strided: their tensor options);
// and the small operators of the default suite with other signatures: nll_loss, soft_margin_loss,
// take_along_dim, linspace, triu_indices / tril_indices, randint; equal (a bool); split,
// split_with_sizes, tensor_split, chunk, unbind (a list of tensors); topk (two tensors);
// random_.from (in place). On an operator of a microsecond the boxed call's cost shows
// (`bench_overhead validity`; the readings are in docs/reproducibility-log.md).

#include <cstdint>
#include <functional>

#include "opbench/exec/inputs.hpp"

namespace opbench::exec {

// One typed call, made once per case.
struct TypedCall {
  std::function<void()> call; // one call; keeps its output until the next call's replaces it
  std::function<void(std::int64_t)> repeat; // `call` n times, the loop inside (Workload::repeat)
  std::function<void()> release;            // drops the kept output
  std::function<c10::IValue()>
      output; // the kept output (a tensor, a list of them, a tuple, a bool)
  explicit operator bool() const { return static_cast<bool>(call); }
};

// A typed call of `call.handle` on `call.args` (the output kept as in `out = at::op(...)`: the
// previous one stays alive until the new one is assigned); empty when the schema has none of the
// signatures above or LibTorch refuses the typed handle.
TypedCall typed_call(const PreparedCall& call);

} // namespace opbench::exec
