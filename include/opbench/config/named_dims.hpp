#pragma once
// Named dimensions of an operator config case: a JSON case declares `"dims": {"M": 64, "K": 128,
// "N": 256}` and writes its shapes with the names (`"self": "MxK"`, `"mat2": ["K", "N"]`,
// `{"shape": ["B", "L"], "high": "V"}`); `run --axis M=64:4096:*2` sweeps a name as it sweeps a
// sample's size. docs/configs.md#named-dimensions has the rules.

#include <cstdint>
#include <map>
#include <string>

#include "opbench/core/json.hpp"

namespace opbench::config {

// A dimension's name: an upper-case letter, then letters, digits or '_', never a lower-case 'x'
// (which separates the sizes of "MxK").
bool is_dim_name(const std::string& text);

// Where names may stand in `args` (a config case's arguments), and what replaces them:
// - a string that is exactly one name is that size, a number: `"dim": "K"` -> 128;
// - a shape string, sizes joined by 'x' and maybe a ":dtype[:init]" after them, takes each
//   name's size: "MxK:int64" -> "64x128:int64";
// - inside arrays and objects, every string that is a name: ["K", "N"] -> [128, 256].
// Throws ConfigError `where: dimension 'Q' has no value (declared: M, K, N)` for a name-like
// token (an upper-case start) that `sizes` does not have.
Json with_dims(const Json& args, const std::map<std::string, std::int64_t>& sizes,
               const std::string& where);

// The names `args` uses (as with_dims finds them), sorted.
std::vector<std::string> dims_used(const Json& args);

} // namespace opbench::config
