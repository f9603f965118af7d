#pragma once
// `opbench extract`: the ATen operators a TorchScript model calls, with its real shapes, as an
// ordinary opbench config. The model runs once on generated inputs while a thread-local
// RecordFunction callback (inputs captured) records every top-level ATen call: calls made
// inside another ATen operator (linear's addmm) are the operator's own business and are not
// recorded. Identical calls are merged with a count.

#include <cstdint>
#include <string>
#include <vector>

#include "opbench/catalog/tensor_spec.hpp"
#include "opbench/core/json.hpp"
#include "opbench/results/case.hpp"

namespace opbench::extract {

// A model input as the command line gives it (catalog/tensor_spec.hpp).
using InputSpec = catalog::InputSpec;

struct RecordedCall {
  std::string op;             // "aten::conv2d", "aten::add.Tensor"
  Json args = Json::object(); // config values, by schema argument name
  int count = 1;
  std::string unsupported; // why it cannot be a config case ("" when it can)
};

struct Extraction {
  std::string model; // path as given; "" for a case's calls
  std::vector<InputSpec> inputs;
  // The case the calls are of, for a case's calls: results::case_key of its id
  // ("bbox2delta/sizes=[64]"); the extracted cases' `source`, which `export --format breakdown`
  // matches to that case's own result. "" for a model.
  std::string case_key;
  std::vector<RecordedCall> calls; // in order of first call
  int total_calls = 0;             // top-level ATen calls, merged ones counted each time
};

// Loads `model` (torch::jit::load), runs forward once on seeded inputs under the recorder.
// Throws Error when the model cannot be loaded or run.
Extraction extract_model(const std::string& model, const std::vector<InputSpec>& inputs,
                         std::uint64_t seed);

// The calls of one call of a planned case (a long-tail sample's, or an operator's), its inputs
// made as `run` makes them. Throws Error naming the case when it cannot be made or run.
Extraction extract_case(const results::Case& c);

// The config `opbench run --config` accepts: every call a case with its `count`, the ones that
// cannot run kept with `unsupported` and their reason; `model` (or `sample_cases`) records where
// they came from. Calls of several extractions (cases) go into one config, each case's calls with
// its case_key as their source.
Json to_config(const std::vector<Extraction>& extractions);

} // namespace opbench::extract
