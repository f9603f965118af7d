#include "opbench/exec/typed_call.hpp"

#include <optional>
#include <string>
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

std::optional<at::Tensor> optional_tensor(const c10::IValue& v) {
  return v.isNone() ? std::nullopt : std::optional<at::Tensor>(v.toTensor());
}

std::optional<c10::SymInt> optional_sym_int(const c10::IValue& v) {
  return v.isNone() ? std::nullopt : std::optional<c10::SymInt>(c10::SymInt(v.toInt()));
}

// A factory's tensor options (dtype, layout, device, pin_memory), as its schema's optional
// keyword arguments starting at `first`.
struct FactoryOptions {
  std::optional<at::ScalarType> dtype;
  std::optional<at::Layout> layout;
  std::optional<at::Device> device;
  std::optional<bool> pin_memory;
};
FactoryOptions factory_options(const std::vector<c10::IValue>& a, std::size_t first) {
  FactoryOptions o;
  if (!a[first].isNone()) o.dtype = a[first].toScalarType();
  if (!a[first + 1].isNone()) o.layout = a[first + 1].toLayout();
  if (!a[first + 2].isNone()) o.device = a[first + 2].toDevice();
  if (!a[first + 3].isNone()) o.pin_memory = a[first + 3].toBool();
  return o;
}

std::optional<at::MemoryFormat> optional_memory_format(const c10::IValue& v) {
  return v.isNone() ? std::nullopt : std::optional<at::MemoryFormat>(v.toMemoryFormat());
}

std::vector<c10::SymInt> sym_ints(const c10::IValue& v) {
  std::vector<c10::SymInt> out;
  for (const int64_t i : v.toIntVector()) out.emplace_back(i);
  return out;
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
  const std::string sig = signature_of(schema);
  const auto& a = call.args;
  try {
    if (sig == "T") {
      auto op = call.handle.typed<at::Tensor(const at::Tensor&)>();
      const at::Tensor x = a[0].toTensor();
      return [op, x, &out] { out = op.call(x); };
    }
    if (sig == "TT") {
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, const at::Tensor&)>();
      const at::Tensor x = a[0].toTensor(), y = a[1].toTensor();
      return [op, x, y, &out] { out = op.call(x, y); };
    }
    if (sig == "TS") {
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, const at::Scalar&)>();
      const at::Tensor x = a[0].toTensor();
      const at::Scalar s = a[1].toScalar();
      return [op, x, s, &out] { out = op.call(x, s); };
    }
    if (sig == "TTS") {
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Scalar&)>();
      const at::Tensor x = a[0].toTensor(), y = a[1].toTensor();
      const at::Scalar s = a[2].toScalar();
      return [op, x, y, s, &out] { out = op.call(x, y, s); };
    }
    if (sig == "TSS") {
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, const at::Scalar&, const at::Scalar&)>();
      const at::Tensor x = a[0].toTensor();
      const at::Scalar s = a[1].toScalar(), t = a[2].toScalar();
      return [op, x, s, t, &out] { out = op.call(x, s, t); };
    }
    if (sig == "Tid") {
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, int64_t, std::optional<at::ScalarType>)>();
      const at::Tensor x = a[0].toTensor();
      const int64_t dim = a[1].toInt();
      const std::optional<at::ScalarType> dtype =
          a[2].isNone() ? std::nullopt : std::optional<at::ScalarType>(a[2].toScalarType());
      return [op, x, dim, dtype, &out] { out = op.call(x, dim, dtype); };
    }
    if (sig == "TiT") {
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, int64_t, const at::Tensor&)>();
      const at::Tensor x = a[0].toTensor(), index = a[2].toTensor();
      const int64_t dim = a[1].toInt();
      return [op, x, dim, index, &out] { out = op.call(x, dim, index); };
    }
    if (sig == "TiTb") {
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, int64_t, const at::Tensor&, bool)>();
      const at::Tensor x = a[0].toTensor(), index = a[2].toTensor();
      const int64_t dim = a[1].toInt();
      const bool flag = a[3].toBool();
      return [op, x, dim, index, flag, &out] { out = op.call(x, dim, index, flag); };
    }
    if (sig == "TTTSS") {
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                             const at::Scalar&, const at::Scalar&)>();
      const at::Tensor x = a[0].toTensor(), y = a[1].toTensor(), z = a[2].toTensor();
      const at::Scalar s = a[3].toScalar(), t = a[4].toScalar();
      return [op, x, y, z, s, t, &out] { out = op.call(x, y, z, s, t); };
    }
    if (sig == "Ti") {  // squeeze.dim, unsqueeze, tril, triu, diag ...
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, int64_t)>();
      const at::Tensor x = a[0].toTensor();
      const int64_t i = a[1].toInt();
      return [op, x, i, &out] { out = op.call(x, i); };
    }
    if (sig == "Ty") {  // tril, triu (a SymInt diagonal in newer LibTorch)
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, c10::SymInt)>();
      const at::Tensor x = a[0].toTensor();
      const c10::SymInt i(a[1].toInt());
      return [op, x, i, &out] { out = op.call(x, i); };
    }
    if (sig == "Tiy") {  // select.int
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, int64_t, c10::SymInt)>();
      const at::Tensor x = a[0].toTensor();
      const int64_t i = a[1].toInt();
      const c10::SymInt j(a[2].toInt());
      return [op, x, i, j, &out] { out = op.call(x, i, j); };
    }
    if (sig == "Tiyy") {  // narrow
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, int64_t, c10::SymInt, c10::SymInt)>();
      const at::Tensor x = a[0].toTensor();
      const int64_t i = a[1].toInt();
      const c10::SymInt j(a[2].toInt()), k(a[3].toInt());
      return [op, x, i, j, k, &out] { out = op.call(x, i, j, k); };
    }
    if (sig == "Tii") {  // transpose.int, flatten.using_ints, movedim.int ...
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, int64_t, int64_t)>();
      const at::Tensor x = a[0].toTensor();
      const int64_t i = a[1].toInt(), j = a[2].toInt();
      return [op, x, i, j, &out] { out = op.call(x, i, j); };
    }
    if (sig == "Tiii") {  // diagonal, diag_embed ...
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, int64_t, int64_t, int64_t)>();
      const at::Tensor x = a[0].toTensor();
      const int64_t i = a[1].toInt(), j = a[2].toInt(), k = a[3].toInt();
      return [op, x, i, j, k, &out] { out = op.call(x, i, j, k); };
    }
    if (sig == "TI") {  // permute ...
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, at::IntArrayRef)>();
      const at::Tensor x = a[0].toTensor();
      const std::vector<int64_t> v = a[1].toIntVector();
      return [op, x, v, &out] { out = op.call(x, v); };
    }
    if (sig == "TY") {  // reshape, view ...
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, c10::SymIntArrayRef)>();
      const at::Tensor x = a[0].toTensor();
      const std::vector<c10::SymInt> v = sym_ints(a[1]);
      return [op, x, v, &out] { out = op.call(x, v); };
    }
    if (sig == "TYb") {  // expand ...
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, c10::SymIntArrayRef, bool)>();
      const at::Tensor x = a[0].toTensor();
      const std::vector<c10::SymInt> v = sym_ints(a[1]);
      const bool flag = a[2].toBool();
      return [op, x, v, flag, &out] { out = op.call(x, v, flag); };
    }
    if (sig == "TYttfb") {  // layer_norm
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, c10::SymIntArrayRef, const std::optional<at::Tensor>&,
                                             const std::optional<at::Tensor>&, double, bool)>();
      const at::Tensor x = a[0].toTensor();
      const std::vector<c10::SymInt> v = sym_ints(a[1]);
      const std::optional<at::Tensor> w = optional_tensor(a[2]), b = optional_tensor(a[3]);
      const double eps = a[4].toDouble();
      const bool flag = a[5].toBool();
      return [op, x, v, w, b, eps, flag, &out] { out = op.call(x, v, w, b, eps, flag); };
    }
    if (sig == "Tizzy") {  // slice.Tensor
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, int64_t, std::optional<c10::SymInt>,
                                             std::optional<c10::SymInt>, c10::SymInt)>();
      const at::Tensor x = a[0].toTensor();
      const int64_t dim = a[1].toInt();
      const std::optional<c10::SymInt> start = optional_sym_int(a[2]), end = optional_sym_int(a[3]);
      const c10::SymInt step(a[4].toInt());
      return [op, x, dim, start, end, step, &out] { out = op.call(x, dim, start, end, step); };
    }
    if (sig == "TYYz") {  // as_strided
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, c10::SymIntArrayRef, c10::SymIntArrayRef,
                                             std::optional<c10::SymInt>)>();
      const at::Tensor x = a[0].toTensor();
      const std::vector<c10::SymInt> size = sym_ints(a[1]), stride = sym_ints(a[2]);
      const std::optional<c10::SymInt> offset = optional_sym_int(a[3]);
      return [op, x, size, stride, offset, &out] { out = op.call(x, size, stride, offset); };
    }
    // Factories: their tensor options, as at::empty(size, options) passes them.
    if (sig == "SdlvB") {  // scalar_tensor
      auto op = call.handle.typed<at::Tensor(const at::Scalar&, std::optional<at::ScalarType>, std::optional<at::Layout>,
                                             std::optional<at::Device>, std::optional<bool>)>();
      const at::Scalar v = a[0].toScalar();
      const FactoryOptions o = factory_options(a, 1);
      return [op, v, o, &out] { out = op.call(v, o.dtype, o.layout, o.device, o.pin_memory); };
    }
    if (sig == "YdlvBm") {  // empty.memory_format
      auto op = call.handle.typed<at::Tensor(c10::SymIntArrayRef, std::optional<at::ScalarType>, std::optional<at::Layout>,
                                             std::optional<at::Device>, std::optional<bool>, std::optional<at::MemoryFormat>)>();
      const std::vector<c10::SymInt> size = sym_ints(a[0]);
      const FactoryOptions o = factory_options(a, 1);
      const std::optional<at::MemoryFormat> format = optional_memory_format(a[5]);
      return [op, size, o, format, &out] { out = op.call(size, o.dtype, o.layout, o.device, o.pin_memory, format); };
    }
    if (sig == "TdlvBm") {  // empty_like, zeros_like, ones_like, rand_like ...
      auto op = call.handle.typed<at::Tensor(const at::Tensor&, std::optional<at::ScalarType>, std::optional<at::Layout>,
                                             std::optional<at::Device>, std::optional<bool>, std::optional<at::MemoryFormat>)>();
      const at::Tensor x = a[0].toTensor();
      const FactoryOptions o = factory_options(a, 1);
      const std::optional<at::MemoryFormat> format = optional_memory_format(a[5]);
      return [op, x, o, format, &out] { out = op.call(x, o.dtype, o.layout, o.device, o.pin_memory, format); };
    }
    if (sig == "YYdlvB") {  // empty_strided
      auto op = call.handle.typed<at::Tensor(c10::SymIntArrayRef, c10::SymIntArrayRef, std::optional<at::ScalarType>,
                                             std::optional<at::Layout>, std::optional<at::Device>, std::optional<bool>)>();
      const std::vector<c10::SymInt> size = sym_ints(a[0]), stride = sym_ints(a[1]);
      const FactoryOptions o = factory_options(a, 2);
      return [op, size, stride, o, &out] { out = op.call(size, stride, o.dtype, o.layout, o.device, o.pin_memory); };
    }
    if (sig == "L" || sig == "Li") {  // hstack, vstack (TensorList); cat (ITensorListRef), stack (TensorList)
      const std::vector<at::Tensor> ts = a[0].toTensorVector();
      const bool with_dim = sig == "Li";
      const int64_t dim = with_dim ? a[1].toInt() : 0;
      // Which of the two C++ list types the kernel takes differs from operator to operator; the
      // typed handle refuses the wrong one (a signature check), so each is tried in turn.
      try {
        if (with_dim) {
          auto op = call.handle.typed<at::Tensor(const at::ITensorListRef&, int64_t)>();
          return [op, ts, dim, &out] { out = op.call(at::ITensorListRef(ts), dim); };
        }
        auto op = call.handle.typed<at::Tensor(const at::ITensorListRef&)>();
        return [op, ts, &out] { out = op.call(at::ITensorListRef(ts)); };
      } catch (const std::exception&) {
      }
      if (with_dim) {
        auto op = call.handle.typed<at::Tensor(at::TensorList, int64_t)>();
        return [op, ts, dim, &out] { out = op.call(ts, dim); };
      }
      auto op = call.handle.typed<at::Tensor(at::TensorList)>();
      return [op, ts, &out] { out = op.call(ts); };
    }
  } catch (const std::exception&) {
    // The kernel's C++ signature differs from the one assumed: call it boxed.
  }
  return {};
}

}  // namespace opbench::exec
