#include "opbench/exec/typed_call.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "opbench/measure/loop.hpp"

namespace opbench::exec {

using measure::repeated;

namespace {

// What the schema returns: "T" one tensor, "L" a list of tensors, "b" a bool, "TT" two tensors;
// "W" the tensor an in-place operator wrote (its first argument, returned); "" anything else.
std::string returns_of(const c10::FunctionSchema& schema) {
  const auto& returns = schema.returns();
  auto kind = [&](std::size_t i) { return returns[i].type()->kind(); };
  if (schema.is_mutable()) {
    const auto* alias = returns.size() == 1 ? returns[0].alias_info() : nullptr;
    const auto* first = schema.arguments().empty() ? nullptr : schema.arguments()[0].alias_info();
    const bool writes_only_first =
        first != nullptr && first->isWrite() &&
        std::none_of(
            schema.arguments().begin() + 1, schema.arguments().end(),
            [](const c10::Argument& a) { return a.alias_info() && a.alias_info()->isWrite(); });
    return alias != nullptr && alias->isWrite() && kind(0) == c10::TypeKind::TensorType &&
                   writes_only_first
               ? "W"
               : "";
  }
  if (returns.size() == 1 && kind(0) == c10::TypeKind::TensorType)
    return "T";
  if (returns.size() == 1 && kind(0) == c10::TypeKind::BoolType)
    return "b";
  if (returns.size() == 1 && kind(0) == c10::TypeKind::ListType &&
      returns[0].type()->castRaw<c10::ListType>()->getElementType()->kind() ==
          c10::TypeKind::TensorType) {
    return "L";
  }
  if (returns.size() == 2 && kind(0) == c10::TypeKind::TensorType &&
      kind(1) == c10::TypeKind::TensorType)
    return "TT";
  return "";
}

// One letter per argument: "T" Tensor, "t" Tensor?, "S" Scalar, "i" int, "j" int?, "y" SymInt,
// "z" SymInt?, "b" bool, "B" bool?, "f" float, "d" ScalarType?, "l" Layout?, "v" Device?,
// "m" MemoryFormat?, "g" Generator?, "I" int[], "Y" SymInt[], "L" Tensor[], anything else "?";
// then ">" and what it returns (returns_of).
std::string signature_of(const c10::FunctionSchema& schema) {
  std::string sig;
  for (const auto& arg : schema.arguments()) {
    const auto& type = arg.real_type();
    switch (type->kind()) {
    case c10::TypeKind::TensorType:
      sig += 'T';
      break;
    case c10::TypeKind::NumberType:
      sig += 'S';
      break;
    case c10::TypeKind::IntType:
      sig += 'i';
      break;
    case c10::TypeKind::SymIntType:
      sig += 'y';
      break;
    case c10::TypeKind::BoolType:
      sig += 'b';
      break;
    case c10::TypeKind::FloatType:
      sig += 'f';
      break;
    case c10::TypeKind::OptionalType: {
      switch (type->castRaw<c10::OptionalType>()->getElementType()->kind()) {
      case c10::TypeKind::ScalarTypeType:
        sig += 'd';
        break;
      case c10::TypeKind::TensorType:
        sig += 't';
        break;
      case c10::TypeKind::SymIntType:
        sig += 'z';
        break;
      case c10::TypeKind::LayoutType:
        sig += 'l';
        break;
      case c10::TypeKind::DeviceObjType:
        sig += 'v';
        break;
      case c10::TypeKind::BoolType:
        sig += 'B';
        break;
      case c10::TypeKind::MemoryFormatType:
        sig += 'm';
        break;
      case c10::TypeKind::IntType:
        sig += 'j';
        break;
      case c10::TypeKind::GeneratorType:
        sig += 'g';
        break;
      default:
        sig += '?';
        break;
      }
      break;
    }
    case c10::TypeKind::ListType: {
      const auto element = type->castRaw<c10::ListType>()->getElementType()->kind();
      sig += element == c10::TypeKind::IntType      ? 'I'
             : element == c10::TypeKind::SymIntType ? 'Y'
             : element == c10::TypeKind::TensorType ? 'L'
                                                    : '?';
      break;
    }
    default:
      sig += '?';
      break;
    }
  }
  return sig + ">" + returns_of(schema);
}

// What a typed call keeps of an argument whose C++ type is A: `type`, made once from the
// argument's IValue (`from`), and handed to the kernel on every call (`pass`, no copy where A is a
// reference).
template <class A> struct Kept { // int64_t, bool, double, Generator
  using type = std::decay_t<A>;
  static type from(const c10::IValue& v) { return v.to<type>(); }
  static const type& pass(const type& k) { return k; }
};
template <> struct Kept<at::Tensor&> { // the tensor an in-place operator writes
  using type = at::Tensor;
  static type from(const c10::IValue& v) { return v.toTensor(); }
  static at::Tensor& pass(type& k) { return k; }
};
template <> struct Kept<c10::SymInt> {
  using type = c10::SymInt;
  static type from(const c10::IValue& v) { return c10::SymInt(v.toInt()); }
  static const type& pass(const type& k) { return k; }
};
template <class T>
struct Kept<std::optional<T>> { // ScalarType?, Layout?, Device?, bool?, MemoryFormat?, SymInt?
  using type = std::optional<T>;
  static type from(const c10::IValue& v) { return v.isNone() ? type() : type(Kept<T>::from(v)); }
  static const type& pass(const type& k) { return k; }
};
template <> struct Kept<const std::optional<at::Tensor>&> : Kept<std::optional<at::Tensor>> {};
template <> struct Kept<c10::SymIntArrayRef> {
  using type = std::vector<c10::SymInt>;
  static type from(const c10::IValue& v) {
    type out;
    for (const int64_t i : v.toIntVector())
      out.emplace_back(i);
    return out;
  }
  static c10::SymIntArrayRef pass(const type& k) { return k; }
};
template <> struct Kept<at::IntArrayRef> {
  using type = std::vector<int64_t>;
  static type from(const c10::IValue& v) { return v.toIntVector(); }
  static at::IntArrayRef pass(const type& k) { return k; }
};
template <> struct Kept<at::TensorList> {
  using type = std::vector<at::Tensor>;
  static type from(const c10::IValue& v) { return v.toTensorVector(); }
  static at::TensorList pass(const type& k) { return k; }
};
template <> struct Kept<const at::ITensorListRef&> : Kept<at::TensorList> {
  static at::ITensorListRef pass(const type& k) { return at::ITensorListRef(k); }
};

template <class R, class... A, std::size_t... I>
TypedCall bind_typed(c10::TypedOperatorHandle<R(A...)> op, const std::vector<c10::IValue>& args,
                     std::index_sequence<I...>) {
  // The output is kept until the next call's is assigned, as in `out = at::op(...)` (an in-place
  // operator's: the tensor it wrote, as the boxed call leaves it on the stack).
  using Out = std::decay_t<R>;
  auto out = std::make_shared<Out>();
  std::tuple<typename Kept<A>::type...> kept{Kept<A>::from(args[I])...};
  TypedCall typed;
  auto one = [op, kept, out]() mutable { *out = op.call(Kept<A>::pass(std::get<I>(kept))...); };
  typed.repeat = repeated(one);
  typed.call = std::move(one);
  typed.release = [out] { *out = Out(); };
  typed.output = [out] { return c10::IValue(*out); };
  return typed;
}

// The typed call of `call` as the C++ signature R(A...); LibTorch's handle throws when the
// kernel's signature is another.
template <class R, class... A> TypedCall typed_as(const PreparedCall& call) {
  return bind_typed<R, A...>(call.handle.typed<R(A...)>(), call.args,
                             std::index_sequence_for<A...>{});
}
template <class... A> TypedCall returning_tensor(const PreparedCall& call) {
  return typed_as<at::Tensor, A...>(call);
}

using Maker = TypedCall (*)(const PreparedCall&);
using T = const at::Tensor&;
using S = const at::Scalar&;
using OptScalarType = std::optional<at::ScalarType>;
using OptLayout = std::optional<at::Layout>;
using OptDevice = std::optional<at::Device>;
using OptBool = std::optional<bool>;
using OptFormat = std::optional<at::MemoryFormat>;
using OptSymInt = std::optional<c10::SymInt>;
using OptTensor = const std::optional<at::Tensor>&;

// Per signature_of's letters, the C++ signatures to try, in order.
const std::map<std::string, std::vector<Maker>>& makers() {
  static const std::map<std::string, std::vector<Maker>> k_makers = {
      {"T>T", {&returning_tensor<T>}},
      {"TT>T", {&returning_tensor<T, T>}},
      {"TS>T", {&returning_tensor<T, S>}},
      {"TTS>T", {&returning_tensor<T, T, S>}},
      {"TSS>T", {&returning_tensor<T, S, S>}},
      {"Tid>T", {&returning_tensor<T, int64_t, OptScalarType>}},
      {"TiT>T", {&returning_tensor<T, int64_t, T>}}, // index_select, gather
      {"TiTb>T", {&returning_tensor<T, int64_t, T, bool>}},
      {"TTTSS>T", {&returning_tensor<T, T, T, S, S>}},         // addmm ...
      {"Ti>T", {&returning_tensor<T, int64_t>}},               // squeeze.dim, unsqueeze, diag ...
      {"Ty>T", {&returning_tensor<T, c10::SymInt>}},           // tril, triu
      {"Tiy>T", {&returning_tensor<T, int64_t, c10::SymInt>}}, // select.int
      {"Tiyy>T", {&returning_tensor<T, int64_t, c10::SymInt, c10::SymInt>}}, // narrow
      {"Tii>T", {&returning_tensor<T, int64_t, int64_t>}}, // transpose.int, flatten.using_ints,
                                                           // movedim.int ...
      {"Tiii>T", {&returning_tensor<T, int64_t, int64_t, int64_t>}}, // diagonal, diag_embed ...
      {"TI>T", {&returning_tensor<T, at::IntArrayRef>}},             // permute ...
      {"TY>T", {&returning_tensor<T, c10::SymIntArrayRef>}},         // reshape, view ...
      {"TYb>T", {&returning_tensor<T, c10::SymIntArrayRef, bool>}},  // expand
      {"TYttfb>T",
       {&returning_tensor<T, c10::SymIntArrayRef, OptTensor, OptTensor, double,
                          bool>}}, // layer_norm
      {"Tizzy>T",
       {&returning_tensor<T, int64_t, OptSymInt, OptSymInt, c10::SymInt>}}, // slice.Tensor
      {"TYYz>T",
       {&returning_tensor<T, c10::SymIntArrayRef, c10::SymIntArrayRef, OptSymInt>}}, // as_strided
      // Factories, with their tensor options.
      {"SdlvB>T",
       {&returning_tensor<S, OptScalarType, OptLayout, OptDevice, OptBool>}}, // scalar_tensor,
                                                                              // arange(end)
      {"YdlvBm>T",
       {&returning_tensor<c10::SymIntArrayRef, OptScalarType, OptLayout, OptDevice, OptBool,
                          OptFormat>}}, // empty
      {"TdlvBm>T",
       {&returning_tensor<T, OptScalarType, OptLayout, OptDevice, OptBool,
                          OptFormat>}}, // empty_like
                                        // ...
      {"YYdlvB>T",
       {&returning_tensor<c10::SymIntArrayRef, c10::SymIntArrayRef, OptScalarType, OptLayout,
                          OptDevice, OptBool>}},
      // Tensor[]: cat takes an ITensorListRef, stack and hstack a TensorList.
      {"L>T", {&returning_tensor<const at::ITensorListRef&>, &returning_tensor<at::TensorList>}},
      {"Li>T",
       {&returning_tensor<const at::ITensorListRef&, int64_t>,
        &returning_tensor<at::TensorList, int64_t>}},
      // The small operators of the default suite that the others leave boxed.
      {"TT>b", {&typed_as<bool, T, T>}},                                       // equal
      {"TTtiy>T", {&returning_tensor<T, T, OptTensor, int64_t, c10::SymInt>}}, // nll_loss
      {"TTi>T", {&returning_tensor<T, T, int64_t>}},                // soft_margin_loss ...
      {"TTj>T", {&returning_tensor<T, T, std::optional<int64_t>>}}, // take_along_dim
      {"SSidlvB>T",
       {&returning_tensor<S, S, int64_t, OptScalarType, OptLayout, OptDevice,
                          OptBool>}}, // linspace
      {"iiidlvB>T",
       {&returning_tensor<int64_t, int64_t, int64_t, OptScalarType, OptLayout, OptDevice,
                          OptBool>}}, // triu_indices
      {"yYdlvB>T",
       {&returning_tensor<c10::SymInt, c10::SymIntArrayRef, OptScalarType, OptLayout, OptDevice,
                          OptBool>}}, // randint
      {"Tijg>W",
       {&typed_as<at::Tensor&, at::Tensor&, int64_t, std::optional<int64_t>,
                  std::optional<at::Generator>>}}, // random_.from
      {"TYi>L",
       {&typed_as<std::vector<at::Tensor>, T, c10::SymIntArrayRef, int64_t>}}, // split_with_sizes
      {"Tyi>L",
       {&typed_as<std::vector<at::Tensor>, T, c10::SymInt, int64_t>}},      // split.Tensor,
                                                                            // tensor_split.sections
      {"Tii>L", {&typed_as<std::vector<at::Tensor>, T, int64_t, int64_t>}}, // chunk
      {"Ti>L", {&typed_as<std::vector<at::Tensor>, T, int64_t>}},           // unbind.int
      {"Tyibb>TT",
       {&typed_as<std::tuple<at::Tensor, at::Tensor>, T, c10::SymInt, int64_t, bool,
                  bool>}}, // topk
  };
  return k_makers;
}

} // namespace

TypedCall typed_call(const PreparedCall& call) {
  const auto found = makers().find(signature_of(call.handle.schema()));
  if (found == makers().end())
    return {};
  for (const Maker make : found->second) {
    try {
      return make(call);
    } catch (const std::exception&) {
      // The kernel's C++ signature differs from this one: try the next, else call it boxed.
    }
  }
  return {};
}

} // namespace opbench::exec
