#pragma once
// How a tensor argument is described in a config: its shape, and optionally its dtype, value
// generator and range. Written as a shape (`[32,3,224,224]` or `32x3x224x224`), a shape with a
// dtype (`1000:int64`), or an object: {"shape":[1000],"dtype":"int64","init":"randint",
// "low":0,"high":512,"requires_grad":false}.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"

namespace opbench::catalog {

// Value generators a tensor can be filled with.
const std::vector<std::string>& init_names();

struct TensorSpec {
  std::vector<std::int64_t> shape; // [] is a 0-dim tensor
  std::string dtype;               // canonical dtype name; "" means the case's dtype
  std::string init;                // one of init_names(); "" means the dtype's default
  std::optional<double> low;       // range of uniform/randint/positive
  std::optional<double> high;
  bool requires_grad = true; // for backward cases; only floating tensors ever do

  // Parses any accepted form; throws ConfigError prefixed with `where`.
  static TensorSpec parse(const Json& value, const std::string& where);

  // Canonical object form, omitting what is default.
  Json to_json() const;

  // Compact form for case ids: `32x3x224x224`, `1000:int64`, `scalar`.
  std::string short_str() const;

  // Number of elements.
  std::int64_t numel() const;
};

// A model input as the command line gives it (`run --model`, `extract --model`):
// `1x3x224x224[:float32]`.
struct InputSpec {
  std::vector<std::int64_t> shape;
  std::string dtype = "float32";

  // Parses `DIMS[:DTYPE]`; throws UsageError.
  static InputSpec parse(const std::string& text);
  std::string str() const; // "1x3x224x224:float32"
  Json to_json() const;    // tensor spec {"shape": [...], "dtype": ...}
};

} // namespace opbench::catalog
