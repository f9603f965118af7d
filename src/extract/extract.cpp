#include "opbench/extract/extract.hpp"

#include "opbench/core/files.hpp"
#include "opbench/exec/call_recorder.hpp"
#include <ATen/ATen.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/serialization/import.h>

#include <map>

#include "opbench/catalog/binder.hpp"
#include "opbench/catalog/tensor_spec.hpp"
#include "opbench/core/dtype.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/exec/inputs.hpp"
#include "opbench/results/case.hpp"

namespace opbench::extract {

InputSpec InputSpec::parse(const std::string& text) {
  const auto parts = core::split(text, ':');
  if (parts.empty() || parts.size() > 2) {
    throw UsageError("bad --input '" + text +
                     "', expected DIMS[:DTYPE] such as 1x3x224x224:float32");
  }
  InputSpec spec;
  try {
    spec.shape = catalog::TensorSpec::parse(Json(parts[0]), "--input").shape;
  } catch (const ConfigError& e) {
    throw UsageError(std::string("bad --input '") + text + "': " + e.what());
  }
  if (parts.size() == 2)
    spec.dtype = core::canonical_dtype(parts[1]);
  return spec;
}

std::string InputSpec::str() const {
  std::vector<std::string> dims;
  for (auto d : shape)
    dims.push_back(std::to_string(d));
  return core::join(dims, "x") + ":" + dtype;
}

Json InputSpec::to_json() const {
  return {{"shape", shape}, {"dtype", dtype}};
}

Extraction extract_model(const std::string& model, const std::vector<InputSpec>& inputs,
                         std::uint64_t seed) {
  Extraction out;
  out.model = model;
  out.inputs = inputs;
  torch::jit::Module module;
  try {
    module = torch::jit::load(model);
  } catch (const std::exception& e) {
    std::string message = e.what();
    message = message.substr(0, message.find('\n'));
    throw Error(model + ": cannot load the TorchScript model (" + message + ")");
  }
  module.eval();
  results::Case c;
  c.dtype = "float32";
  c.device = "cpu";
  c.seed = seed;
  c.origin = model;
  Json specs = Json::array();
  for (const auto& input : inputs)
    specs.push_back(input.to_json());
  const std::vector<c10::IValue> values = exec::make_tensors(c, specs);

  exec::Recording recording;
  {
    // The unoptimised graph: the calls the model's code makes, not a fused rewrite of them.
    torch::jit::GraphOptimizerEnabledGuard no_optimization(false);
    at::NoGradGuard no_grad;
    exec::RecordOptions record_options;
    record_options.value_ranges = true;
    try {
      recording = exec::record_aten_calls([&] { module.forward(values); }, record_options);
    } catch (const std::exception& e) {
      std::string message = e.what();
      throw Error(model + ": forward failed on the given inputs (" +
                  message.substr(0, message.find('\n')) + ")");
    }
  }

  std::map<std::string, std::size_t> index;
  for (auto& call : recording.calls) {
    ++out.total_calls;
    const std::string key = call.op + " " + call.args.dump();
    if (auto it = index.find(key); it != index.end()) {
      ++out.calls[it->second].count;
      continue;
    }
    RecordedCall recorded{call.op, call.args, 1, call.unsupported};
    if (recorded.unsupported.empty()) {
      try {
        catalog::bind_case(recorded.op, recorded.args, model);
      } catch (const ConfigError& e) {
        std::string message = e.what();
        recorded.unsupported =
            message.substr(message.find(": ") == std::string::npos ? 0 : message.find(": ") + 2);
      }
    }
    index.emplace(key, out.calls.size());
    out.calls.push_back(std::move(recorded));
  }
  return out;
}

Json to_config(const Extraction& extraction) {
  const std::string name = core::filename(extraction.model);
  Json model = {{"path", extraction.model}, {"top_level_calls", extraction.total_calls}};
  Json inputs = Json::array();
  for (const auto& input : extraction.inputs)
    inputs.push_back(input.str());
  model["inputs"] = inputs;
  // One operator entry per ATen operator, in order of first call.
  Json operators = Json::array();
  std::map<std::string, std::size_t> position;
  for (const auto& call : extraction.calls) {
    auto it = position.find(call.op);
    if (it == position.end()) {
      it = position.emplace(call.op, operators.size()).first;
      operators.push_back({{"op", call.op},
                           {"category", "model"},
                           {"tags", {"extracted"}},
                           {"cases", Json::array()}});
    }
    Json c = {
        {"args", call.args}, {"shape_class", "common"}, {"source", name}, {"count", call.count}};
    if (!call.unsupported.empty())
      c["unsupported"] = call.unsupported;
    operators[it->second]["cases"].push_back(c);
  }
  return {{"description", "ATen calls of " + name + ", recorded by opbench extract"},
          {"model", model},
          {"operators", operators}};
}

} // namespace opbench::extract
