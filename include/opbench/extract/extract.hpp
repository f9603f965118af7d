#pragma once
// `opbench extract`: the ATen operators a model calls, with its real shapes, as an ordinary
// opbench config (docs/extract.md). A TorchScript model runs once on generated inputs while a
// thread-local RecordFunction callback (inputs captured) records every top-level ATen call: calls
// made inside another ATen operator (linear's addmm) are the operator's own business and are not
// recorded. A torch.export program is read, not run: each operator node is a call, its symbolic
// sizes named dimensions (`dims`) that `run --axis` sweeps. Identical calls are merged with a
// count.

#include <cstdint>
#include <map>
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
  // The named dimensions `args` uses, each at its example size (exported programs): name -> size.
  Json dims = Json::object();
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
  // An exported program: its path, the torch that read it, its dimensions (name -> {symbol,
  // input, dim, example, min, max}), its tensor inputs ([{name, shape: sizes and dimension names,
  // dtype}]: what `opbench replay` makes to call the whole program) and the nodes left out (no
  // operator call), one line each.
  std::string exported;
  std::string torch_version;
  Json program_dims = Json::object();
  Json program_inputs = Json::array();
  // With extract_exported's `record`: per call of the inputs, {"sizes": {NAME: SIZE}} and
  // "refused" (why) when the program's module did not take it.
  Json recorded = Json::array();
  std::vector<std::string> left_out;
};

// Loads `model` (torch::jit::load), runs forward once on seeded inputs under the recorder.
// Throws Error when the model cannot be loaded or run.
Extraction extract_model(const std::string& model, const std::vector<InputSpec>& inputs,
                         std::uint64_t seed);

// The operator calls of the torch.export program at `program`, read by scripts/export_calls.py
// in the Python stages::compiler_python() names (its torch.export.load; nothing of the .pt2 format
// is read here). A call a config cannot express or that does not bind (an expression of sizes, a
// size with no example, an operator of a library not loaded) is kept `unsupported`, naming its
// node. Throws Error in one line when the file is no program that Python's torch reads, or when
// that Python does not run. With `record` (a torch.save of a list, each item the positional inputs
// of one call), each item is also called through the program's module, and its dimensions' sizes
// kept in Extraction::recorded (a file torch cannot read as such a list: Error naming it).
Extraction extract_exported(const std::string& program, const std::string& record = "");

// The recorded sizes as `opbench replay --sizes` reads them: one line a call (`BATCH=8 SEQ=16`),
// a call the program refused as a comment saying why; `inputs` names the file they came from.
std::string sizes_text(const Extraction& extraction, const std::string& inputs);

// Gives an exported program's dimensions other names (`{"X_0": "BATCH"}`): in its dims, inputs,
// every call's arguments and dims, and the recorded sizes. Throws Error naming the dimension when
// the program has no such dimension, when a new name is no dimension name (config::is_dim_name) or
// is taken.
void rename_dims(Extraction& extraction, const std::map<std::string, std::string>& names);

// The calls of one call of a planned case (a long-tail sample's, or an operator's), its inputs
// made as `run` makes them. Throws Error naming the case when it cannot be made or run.
Extraction extract_case(const results::Case& c);

// The config `opbench run --config` accepts: every call a case with its `count`, the ones that
// cannot run kept with `unsupported` and their reason; `model` (or `sample_cases`) records where
// they came from. Calls of several extractions (cases) go into one config, each case's calls with
// its case_key as their source.
Json to_config(const std::vector<Extraction>& extractions);

} // namespace opbench::extract
