#include "opbench/machine/devices.hpp"

#include "opbench/core/error.hpp"

namespace opbench::machine {

namespace {

// The one table of canonical dtype names and their c10 types.
constexpr std::pair<const char*, at::ScalarType> k_dtypes[] = {{"float32", at::kFloat},
                                                               {"float16", at::kHalf},
                                                               {"bfloat16", at::kBFloat16},
                                                               {"float64", at::kDouble},
                                                               {"int8", at::kChar},
                                                               {"uint8", at::kByte},
                                                               {"int16", at::kShort},
                                                               {"int32", at::kInt},
                                                               {"int64", at::kLong},
                                                               {"bool", at::kBool},
                                                               {"complex64", at::kComplexFloat},
                                                               {"complex128", at::kComplexDouble}};

} // namespace

at::ScalarType scalar_type(const std::string& name) {
  for (const auto& [canonical, type] : k_dtypes) {
    if (name == canonical)
      return type;
  }
  // Defaults that the schema printed in LibTorch's own spelling (Float, Long, ...).
  for (const auto& entry : k_dtypes) {
    if (name == c10::toString(entry.second))
      return entry.second;
  }
  throw ConfigError("unknown dtype '" + name + "'");
}

std::string dtype_name(at::ScalarType type) {
  for (const auto& [canonical, t] : k_dtypes) {
    if (t == type)
      return canonical;
  }
  return "";
}

at::Device device_of(const std::string& canonical) {
  return at::Device(canonical);
}

} // namespace opbench::machine
