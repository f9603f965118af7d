#pragma once
// `opbench extract`: the ATen operators a TorchScript model calls, with its real shapes, as an
// ordinary opbench config. The model runs once on generated inputs while a thread-local
// RecordFunction callback (inputs captured) records every top-level ATen call: calls made
// inside another ATen operator (linear's addmm) are the operator's own business and are not
// recorded. Identical calls are merged with a count.

#include <cstdint>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"

namespace opbench::extract {

// A model input as the command line gives it: `1x3x224x224[:float32]`.
struct InputSpec {
  std::vector<std::int64_t> shape;
  std::string dtype = "float32";

  // Parses `DIMS[:DTYPE]`; throws UsageError.
  static InputSpec parse(const std::string& text);
  std::string str() const; // "1x3x224x224:float32"
  Json to_json() const;    // tensor spec {"shape": [...], "dtype": ...}
};

struct RecordedCall {
  std::string op;             // "aten::conv2d", "aten::add.Tensor"
  Json args = Json::object(); // config values, by schema argument name
  int count = 1;
  std::string unsupported; // why it cannot be a config case ("" when it can)
};

struct Extraction {
  std::string model; // path as given
  std::vector<InputSpec> inputs;
  std::vector<RecordedCall> calls; // in order of first call
  int total_calls = 0;             // top-level ATen calls, merged ones counted each time
};

// Loads `model` (torch::jit::load), runs forward once on seeded inputs under the recorder.
// Throws Error when the model cannot be loaded or run.
Extraction extract_model(const std::string& model, const std::vector<InputSpec>& inputs,
                         std::uint64_t seed);

// The config `opbench run --config` accepts: every call a case with its `count`, the ones that
// cannot run kept with `unsupported` and their reason; `model` records where it came from.
Json to_config(const Extraction& extraction);

} // namespace opbench::extract
