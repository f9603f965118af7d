#pragma once
// The JSON type used everywhere: keys keep their insertion order, so files diff cleanly.

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

namespace opbench {
using Json = nlohmann::ordered_json;

namespace core {

// `value` as a signed 64-bit integer when it is exactly one (an integer in range, or a float with
// an integral value in range); nullopt otherwise. Readers of outside files use this instead of
// get<int64_t>(), which is undefined behaviour on a float out of range (bench/fuzz.sh found one).
inline std::optional<std::int64_t> exact_int64(const Json& value) {
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    return static_cast<std::int64_t>(v);
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) {
    const double v = value.get<double>();
    // 2^63 is exactly representable; every integral double below it fits.
    if (!std::isfinite(v) || std::trunc(v) != v || v < -9223372036854775808.0 || v >= 9223372036854775808.0) {
      return std::nullopt;
    }
    return static_cast<std::int64_t>(v);
  }
  return std::nullopt;
}

}  // namespace core
}  // namespace opbench
