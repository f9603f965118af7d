// The typed (unboxed) call against the boxed one (exec/typed_call.hpp): the same outputs for
// every typed signature, and the result says which path ran.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <string>
#include <tuple>
#include <vector>

#include "makers.hpp"
#include "op_case.hpp"
#include "opbench/catalog/binder.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/exec/inputs.hpp"
#include "opbench/exec/typed_call.hpp"
#include "opbench/measure/call_recorder.hpp"
#include "opbench/plan/planner.hpp"
#include "quick_exec.hpp"

namespace opbench::exec {

using measure::ExecOptions;
using measure::quick_exec_options;
using measure::record_aten_calls;
using measure::RecordedCall;
using measure::Recording;
using measure::Workload;
using testing::make_op_case;

namespace {

// The typed fast path calls the same kernels as the boxed path: same outputs, and the result
// says which path ran.

// The values of an output (tensors cloned): an in-place operator's output is overwritten by the
// next call.
c10::IValue values_of(const c10::IValue& v) {
  if (v.isTensor())
    return v.toTensor().clone();
  if (v.isTensorList()) {
    std::vector<at::Tensor> out;
    for (const at::Tensor& t : v.toTensorVector())
      out.push_back(t.clone());
    return out;
  }
  if (v.isTuple()) {
    std::vector<c10::IValue> out;
    for (const auto& e : v.toTupleRef().elements())
      out.push_back(values_of(e));
    return c10::ivalue::Tuple::create(std::move(out));
  }
  return v;
}

// The tensors of an output, in order (none for a bool).
std::vector<at::Tensor> tensors_of(const c10::IValue& v) {
  if (v.isTensor())
    return {v.toTensor()};
  if (v.isTensorList())
    return v.toTensorVector();
  std::vector<at::Tensor> out;
  if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) {
      for (const at::Tensor& t : tensors_of(e))
        out.push_back(t);
    }
  }
  return out;
}

// Calls `call` typed, then boxed, the default generator seeded alike before each; `values`: check
// the elements too (not for factories of uninitialised memory).
void expect_typed_as_boxed(const PreparedCall& call, const std::string& op, bool values = true) {
  const TypedCall typed = typed_call(call);
  ASSERT_TRUE(typed) << op;
  at::manual_seed(7);
  typed.call();
  const c10::IValue typed_out = typed.output();
  const c10::IValue typed_values = values_of(typed_out);
  at::manual_seed(7);
  std::vector<c10::IValue> stack(call.args.begin(), call.args.end());
  call.handle.callBoxed(stack);
  ASSERT_FALSE(stack.empty()) << op;
  // Two returns are two entries of the stack.
  const c10::IValue boxed_out =
      stack.size() == 1 ? stack[0] : c10::IValue(c10::ivalue::Tuple::create(stack));
  if (boxed_out.isBool()) {
    ASSERT_TRUE(typed_out.isBool()) << op;
    EXPECT_EQ(typed_out.toBool(), boxed_out.toBool()) << op;
    return;
  }
  const auto typed_tensors = tensors_of(typed_out), boxed_tensors = tensors_of(boxed_out);
  const auto typed_kept = tensors_of(typed_values);
  ASSERT_FALSE(boxed_tensors.empty()) << op;
  ASSERT_EQ(typed_tensors.size(), boxed_tensors.size()) << op;
  for (std::size_t i = 0; i < boxed_tensors.size(); ++i) {
    EXPECT_EQ(typed_tensors[i].sizes(), boxed_tensors[i].sizes()) << op << " output " << i;
    EXPECT_EQ(typed_tensors[i].strides(), boxed_tensors[i].strides()) << op << " output " << i;
    EXPECT_EQ(typed_tensors[i].dtype(), boxed_tensors[i].dtype()) << op << " output " << i;
    EXPECT_EQ(typed_tensors[i].device(), boxed_tensors[i].device()) << op << " output " << i;
    if (values)
      EXPECT_TRUE(at::equal(typed_kept[i], boxed_tensors[i])) << op << " output " << i;
  }
}

TEST(TypedCall, SameOutputAsBoxedForEachSignature) {
  const Json index_of_10 = {{"dtype", "int64"}, {"high", 10}};
  auto indices = [&](std::vector<int64_t> shape) {
    Json spec = index_of_10;
    spec["shape"] = shape;
    return spec;
  };
  const std::vector<std::pair<std::string, Json>> cases = {
      {"relu", {{"self", "4x5"}}},
      {"mm", {{"self", "4x5"}, {"mat2", "5x3"}}},
      {"mul", {{"self", "4x5"}, {"other", 2.5}}},
      {"add", {{"self", "4x5"}, {"other", "[5]"}, {"alpha", 3}}},
      {"softmax", {{"self", "4x5"}, {"dim", 1}}},
      {"addmm", {{"self", "[3]"}, {"mat1", "4x5"}, {"mat2", "5x3"}, {"beta", 0.5}}},
      {"index_select", {{"self", "10x4"}, {"dim", 0}, {"index", indices({6})}}},
      {"gather", {{"self", "4x10"}, {"dim", 1}, {"index", indices({4, 2})}}},
      {"tril", {{"self", "4x5"}, {"diagonal", -1}}},
      {"transpose", {{"self", "4x5x6"}, {"dim0", 0}, {"dim1", 2}}},
      {"diagonal", {{"self", "4x5x6"}, {"offset", 1}, {"dim1", 0}, {"dim2", 2}}},
      {"permute", {{"self", "4x5x6"}, {"dims", {2, 0, 1}}}},
      {"reshape", {{"self", "4x5x6"}, {"shape", {20, 6}}}},
      {"expand", {{"self", "4x1"}, {"size", {4, 5}}}},
      {"select", {{"self", "4x5"}, {"dim", 1}, {"index", 2}}},
      {"narrow", {{"self", "4x5"}, {"dim", 1}, {"start", 1}, {"length", 3}}},
      {"layer_norm",
       {{"input", "4x32"}, {"normalized_shape", {32}}, {"weight", "[32]"}, {"bias", "[32]"}}},
      {"cat", {{"tensors", Json::array({"2x3", "4x3"})}, {"dim", 0}}},
      {"stack", {{"tensors", Json::array({"2x3", "2x3"})}, {"dim", 1}}},
      {"hstack", {{"tensors", Json::array({"2x3", "2x5"})}}},
      {"slice.Tensor", {{"self", "4x5"}, {"dim", 1}, {"start", 1}, {"end", 4}}},
      {"as_strided",
       {{"self", "4x5"}, {"size", {2, 2}}, {"stride", {5, 1}}, {"storage_offset", 3}}},
      {"scalar_tensor", {{"s", 0.125}}},
      // Other returns: a bool, lists of tensors, two tensors, the tensor written in place.
      {"equal", {{"self", "4x5"}, {"other", "4x5"}}},
      {"split_with_sizes", {{"self", "4x6"}, {"split_sizes", {2, 4}}, {"dim", 1}}},
      {"split.Tensor", {{"self", "4x6"}, {"split_size", 4}, {"dim", -1}}},
      {"tensor_split.sections", {{"self", "4x7"}, {"sections", 3}, {"dim", 1}}},
      {"chunk", {{"self", "4x6"}, {"chunks", 4}, {"dim", 1}}},
      {"unbind.int", {{"self", "3x4"}, {"dim", 1}}},
      {"topk", {{"self", "4x10"}, {"k", 3}}},
      {"random_.from", {{"self", "3x4"}, {"from", 0}, {"to", 100}}},
      // The small operators with signatures of their own.
      {"nll_loss", {{"self", "4x10"}, {"target", indices({4})}}},
      {"soft_margin_loss", {{"self", "4x5"}, {"target", "4x5"}}},
      {"take_along_dim", {{"self", "4x10"}, {"indices", indices({4, 3})}, {"dim", 1}}},
      {"linspace", {{"start", 0.0}, {"end", 10.0}, {"steps", 7}}},
      {"triu_indices", {{"row", 5}, {"col", 6}, {"offset", 1}}},
      {"tril_indices", {{"row", 5}, {"col", 6}}},
      {"randint", {{"high", 100}, {"size", {3, 4}}}},
  };
  for (const auto& [op, args] : cases)
    expect_typed_as_boxed(prepare_call(make_op_case(op, args), false), op);
  // Factories of uninitialised memory: the same kind of tensor (their values are whatever was
  // there).
  const std::vector<std::pair<std::string, Json>> factories = {
      {"empty", {{"size", {4, 5}}}},
      {"empty_like", {{"self", "4x5"}}},
      {"empty_strided", {{"size", {4, 5}}, {"stride", {1, 4}}}},
  };
  for (const auto& [op, args] : factories) {
    expect_typed_as_boxed(prepare_call(make_op_case(op, args), false), op, /*values=*/false);
  }
  const auto conv = make_op_case("conv2d", {{"input", "1x3x8x8"}, {"weight", "4x3x3x3"}});
  EXPECT_FALSE(typed_call(prepare_call(conv, false))); // a signature not among them: boxed
  // An operator that writes an argument other than its first (an out= overload): boxed.
  EXPECT_FALSE(typed_call(prepare_call(
      make_op_case("add.out", {{"self", "[4]"}, {"other", "[4]"}, {"out", "[4]"}}), false)));
  EXPECT_EQ(run_case(make_op_case("add", {{"self", "[4]"}, {"other", "[4]"}}), quick_exec_options())
                .timing.call_path,
            results::CallPath::typed);
  EXPECT_EQ(run_case(conv, quick_exec_options()).timing.call_path, results::CallPath::boxed);
}

// Workload::repeat(n) is n calls of the very call `call` makes, typed or boxed: the timing loop
// runs a block through it (measure.hpp's measure_repeated), one indirect call a block.
TEST(TypedCall, RepeatIsThatManyCallsOfTheSameCall) {
  for (const auto& [op, args, path] : std::vector<std::tuple<std::string, Json, results::CallPath>>{
           {"add", {{"self", "[4]"}, {"other", "[4]"}}, results::CallPath::typed},
           {"conv2d", {{"input", "1x3x8x8"}, {"weight", "4x3x3x3"}}, results::CallPath::boxed}}) {
    PreparedCall call = prepare_call(make_op_case(op, args), false);
    Workload w = operator_workload(call);
    EXPECT_EQ(w.call_path, path) << op;
    ASSERT_TRUE(w.repeat) << op;
    const Recording one = record_aten_calls(w.call, {});
    const Recording five = record_aten_calls([&w] { w.repeat(5); }, {});
    ASSERT_EQ(one.calls.size(), 1u) << op;
    ASSERT_EQ(five.calls.size(), 5u) << op;
    for (const RecordedCall& made : five.calls) {
      EXPECT_EQ(made.op, one.calls[0].op);
      EXPECT_EQ(made.args, one.calls[0].args);
    }
    EXPECT_NO_THROW(w.repeat(0));
  }
}

} // namespace
} // namespace opbench::exec
