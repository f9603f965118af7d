#include "opbench/exec/typed_call.hpp"

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace opbench::exec {
namespace {

// One letter per argument: "T" Tensor, "t" Tensor?, "S" Scalar, "i" int, "y" SymInt, "z" SymInt?,
// "b" bool, "B" bool?, "f" float, "d" ScalarType?, "l" Layout?, "v" Device?, "m" MemoryFormat?,
// "I" int[], "Y" SymInt[], "L" Tensor[], anything else "?".
std::string signature_of(const c10::FunctionSchema& schema) {
  std::string sig;
  for (const auto& arg : schema.arguments()) {
    const auto& type = arg.real_type();
    switch (type->kind()) {
      case c10::TypeKind::TensorType: sig += 'T'; break;
      case c10::TypeKind::NumberType: sig += 'S'; break;
      case c10::TypeKind::IntType: sig += 'i'; break;
      case c10::TypeKind::SymIntType: sig += 'y'; break;
      case c10::TypeKind::BoolType: sig += 'b'; break;
      case c10::TypeKind::FloatType: sig += 'f'; break;
      case c10::TypeKind::OptionalType: {
        switch (type->castRaw<c10::OptionalType>()->getElementType()->kind()) {
          case c10::TypeKind::ScalarTypeType: sig += 'd'; break;
          case c10::TypeKind::TensorType: sig += 't'; break;
          case c10::TypeKind::SymIntType: sig += 'z'; break;
          case c10::TypeKind::LayoutType: sig += 'l'; break;
          case c10::TypeKind::DeviceObjType: sig += 'v'; break;
          case c10::TypeKind::BoolType: sig += 'B'; break;
          case c10::TypeKind::MemoryFormatType: sig += 'm'; break;
          default: sig += '?'; break;
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
      default: sig += '?'; break;
    }
  }
  return sig;
}

// What a typed call keeps of an argument whose C++ type is A: `type`, made once from the
// argument's IValue (`from`), and handed to the kernel on every call (`pass`, no copy where A is a
// reference).
template <class A>
struct Kept {  // int64_t, bool, double
  using type = std::decay_t<A>;
  static type from(const c10::IValue& v) { return v.to<type>(); }
  static const type& pass(const type& k) { return k; }
};
template <>
struct Kept<c10::SymInt> {
  using type = c10::SymInt;
  static type from(const c10::IValue& v) { return c10::SymInt(v.toInt()); }
  static const type& pass(const type& k) { return k; }
};
template <class T>
struct Kept<std::optional<T>> {  // ScalarType?, Layout?, Device?, bool?, MemoryFormat?, SymInt?
  using type = std::optional<T>;
  static type from(const c10::IValue& v) { return v.isNone() ? type() : type(Kept<T>::from(v)); }
  static const type& pass(const type& k) { return k; }
};
template <>
struct Kept<const std::optional<at::Tensor>&> : Kept<std::optional<at::Tensor>> {};
template <>
struct Kept<c10::SymIntArrayRef> {
  using type = std::vector<c10::SymInt>;
  static type from(const c10::IValue& v) {
    type out;
    for (const int64_t i : v.toIntVector()) out.emplace_back(i);
    return out;
  }
  static c10::SymIntArrayRef pass(const type& k) { return k; }
};
template <>
struct Kept<at::IntArrayRef> {
  using type = std::vector<int64_t>;
  static type from(const c10::IValue& v) { return v.toIntVector(); }
  static at::IntArrayRef pass(const type& k) { return k; }
};
template <>
struct Kept<at::TensorList> {
  using type = std::vector<at::Tensor>;
  static type from(const c10::IValue& v) { return v.toTensorVector(); }
  static at::TensorList pass(const type& k) { return k; }
};
template <>
struct Kept<const at::ITensorListRef&> : Kept<at::TensorList> {
  static at::ITensorListRef pass(const type& k) { return at::ITensorListRef(k); }
};

template <class... A, std::size_t... I>
std::function<void()> bind_typed(c10::TypedOperatorHandle<at::Tensor(A...)> op, const std::vector<c10::IValue>& args,
                                 at::Tensor& out, std::index_sequence<I...>) {
  std::tuple<typename Kept<A>::type...> kept{Kept<A>::from(args[I])...};
  return [op, kept, &out] { out = op.call(Kept<A>::pass(std::get<I>(kept))...); };
}

// The typed call of `call` as the C++ signature at::Tensor(A...); LibTorch's handle throws when the
// kernel's signature is another.
template <class... A>
std::function<void()> typed_as(const PreparedCall& call, at::Tensor& out) {
  return bind_typed<A...>(call.handle.typed<at::Tensor(A...)>(), call.args, out, std::index_sequence_for<A...>{});
}

using Maker = std::function<void()> (*)(const PreparedCall&, at::Tensor&);
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
      {"T", {&typed_as<T>}},
      {"TT", {&typed_as<T, T>}},
      {"TS", {&typed_as<T, S>}},
      {"TTS", {&typed_as<T, T, S>}},
      {"TSS", {&typed_as<T, S, S>}},
      {"Tid", {&typed_as<T, int64_t, OptScalarType>}},
      {"TiT", {&typed_as<T, int64_t, T>}},             // index_select, gather
      {"TiTb", {&typed_as<T, int64_t, T, bool>}},
      {"TTTSS", {&typed_as<T, T, T, S, S>}},           // addmm ...
      {"Ti", {&typed_as<T, int64_t>}},                 // squeeze.dim, unsqueeze, diag ...
      {"Ty", {&typed_as<T, c10::SymInt>}},             // tril, triu
      {"Tiy", {&typed_as<T, int64_t, c10::SymInt>}},   // select.int
      {"Tiyy", {&typed_as<T, int64_t, c10::SymInt, c10::SymInt>}},  // narrow
      {"Tii", {&typed_as<T, int64_t, int64_t>}},       // transpose.int, flatten.using_ints, movedim.int ...
      {"Tiii", {&typed_as<T, int64_t, int64_t, int64_t>}},  // diagonal, diag_embed ...
      {"TI", {&typed_as<T, at::IntArrayRef>}},         // permute ...
      {"TY", {&typed_as<T, c10::SymIntArrayRef>}},     // reshape, view ...
      {"TYb", {&typed_as<T, c10::SymIntArrayRef, bool>}},  // expand
      {"TYttfb", {&typed_as<T, c10::SymIntArrayRef, OptTensor, OptTensor, double, bool>}},  // layer_norm
      {"Tizzy", {&typed_as<T, int64_t, OptSymInt, OptSymInt, c10::SymInt>}},               // slice.Tensor
      {"TYYz", {&typed_as<T, c10::SymIntArrayRef, c10::SymIntArrayRef, OptSymInt>}},        // as_strided
      // Factories, with their tensor options.
      {"SdlvB", {&typed_as<S, OptScalarType, OptLayout, OptDevice, OptBool>}},  // scalar_tensor, arange(end)
      {"YdlvBm", {&typed_as<c10::SymIntArrayRef, OptScalarType, OptLayout, OptDevice, OptBool, OptFormat>}},  // empty
      {"TdlvBm", {&typed_as<T, OptScalarType, OptLayout, OptDevice, OptBool, OptFormat>}},  // empty_like ...
      {"YYdlvB", {&typed_as<c10::SymIntArrayRef, c10::SymIntArrayRef, OptScalarType, OptLayout, OptDevice, OptBool>}},
      // Tensor[]: cat takes an ITensorListRef, stack and hstack a TensorList.
      {"L", {&typed_as<const at::ITensorListRef&>, &typed_as<at::TensorList>}},
      {"Li", {&typed_as<const at::ITensorListRef&, int64_t>, &typed_as<at::TensorList, int64_t>}},
  };
  return k_makers;
}

bool returns_one_tensor(const c10::FunctionSchema& schema) {
  return schema.returns().size() == 1 &&
         schema.returns()[0].type()->kind() == c10::TypeKind::TensorType &&
         !schema.is_mutable();
}

}  // namespace

std::function<void()> typed_call(const PreparedCall& call, at::Tensor& out) {
  const auto& schema = call.handle.schema();
  if (!returns_one_tensor(schema)) return {};
  const auto found = makers().find(signature_of(schema));
  if (found == makers().end()) return {};
  for (const Maker make : found->second) {
    try {
      return make(call, out);
    } catch (const std::exception&) {
      // The kernel's C++ signature differs from this one: try the next, else call it boxed.
    }
  }
  return {};
}

}  // namespace opbench::exec
