#pragma once
// The JSON type used everywhere: keys keep their insertion order, so files diff cleanly.

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "opbench/core/error.hpp"

namespace opbench {
using Json = nlohmann::ordered_json;

namespace core {

// How deep a JSON value from outside opbench may nest. opbench's own files nest under 10 levels;
// nlohmann's parser is iterative, but copying, printing and destroying a value recurse, so a value
// 100,000 levels deep would overflow the stack (docs/hostile-input.md).
inline constexpr int k_json_max_depth = 128;

// Parses JSON that came from outside opbench (a result file, a journal line, a config file or
// cell, a history row, a peaks file). Returns nullopt when it is not JSON or nests deeper than
// k_json_max_depth or holds one key twice in an object (a config's "dims": {"H": 1, "H": 2}, which
// JSON would read as its last silently), with `error` (when given) saying which: "invalid JSON
// (...)" or "JSON nested deeper than 128 levels"; the value is never built past that depth.
std::optional<Json> parse_json(std::string_view text, std::string* error = nullptr);

// `value` as a signed 64-bit integer when it is exactly one (an integer in range, or a float with
// an integral value in range); nullopt otherwise. Readers of outside files use this instead of
// get<int64_t>(), which is undefined behaviour on a float out of range (bench/fuzz.sh found one).
inline std::optional<std::int64_t> exact_int64(const Json& value) {
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return std::nullopt;
    return static_cast<std::int64_t>(v);
  }
  if (value.is_number_integer())
    return value.get<std::int64_t>();
  if (value.is_number_float()) {
    const double v = value.get<double>();
    // 2^63 is exactly representable; every integral double below it fits.
    if (!std::isfinite(v) || std::trunc(v) != v || v < -9223372036854775808.0 ||
        v >= 9223372036854775808.0) {
      return std::nullopt;
    }
    return static_cast<std::int64_t>(v);
  }
  return std::nullopt;
}

// `object[key]` when `object` is an object holding a string there; "" otherwise (absent, null,
// another type, or `object` no object): a run context's optional text, as older files lack some.
inline std::string text_field(const Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string()
             ? object[key].get<std::string>()
             : std::string();
}

// An integer field of `object` in a file opbench reads back: `fallback` when absent or null; a
// ResultsError naming `where` and `key` unless it is an integer in [low, high] (exact_int64).
inline std::int64_t integer_field(const Json& object, const char* key, std::int64_t fallback,
                                  const std::string& where,
                                  std::int64_t low = std::numeric_limits<std::int64_t>::min(),
                                  std::int64_t high = std::numeric_limits<std::int64_t>::max()) {
  if (!object.contains(key) || object[key].is_null())
    return fallback;
  const auto v = exact_int64(object[key]);
  if (!v || *v < low || *v > high) {
    const bool bounded = low != std::numeric_limits<std::int64_t>::min() ||
                         high != std::numeric_limits<std::int64_t>::max();
    throw ResultsError(
        where + ": '" + key + "' must be an integer" +
        (bounded ? " from " + std::to_string(low) + " to " + std::to_string(high) : std::string()) +
        ", found " + object[key].dump());
  }
  return *v;
}

} // namespace core
} // namespace opbench
