#include "opbench/exec/typed_call.hpp"

#include <string>
#include <vector>

namespace opbench::exec {
namespace {

// "T" Tensor, "S" Scalar, "i" int, "d?" ScalarType?, anything else "?".
std::string signature_of(const c10::FunctionSchema& schema) {
  std::string sig;
  for (const auto& arg : schema.arguments()) {
    const auto& type = arg.real_type();
    switch (type->kind()) {
      case c10::TypeKind::TensorType: sig += 'T'; break;
      case c10::TypeKind::NumberType: sig += 'S'; break;
      case c10::TypeKind::IntType: sig += 'i'; break;
      case c10::TypeKind::BoolType: sig += 'b'; break;
      case c10::TypeKind::OptionalType:
        sig += type->castRaw<c10::OptionalType>()->getElementType()->kind() == c10::TypeKind::ScalarTypeType ? 'd' : '?';
        break;
      default: sig += '?'; break;
    }
  }
  return sig;
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
  } catch (const std::exception&) {
    // The kernel's C++ signature differs from the one assumed: call it boxed.
  }
  return {};
}

}  // namespace opbench::exec
