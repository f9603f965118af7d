#include "opbench/extract/extract.hpp"

#include "opbench/core/files.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/measure/call_recorder.hpp"
#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
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

namespace {

// Merges identical calls of `recording` into `out` (with a count), binding each to find those
// that cannot run from a config (`where` names the recording in binding errors).
void merge_calls(measure::Recording& recording, const std::string& where, Extraction& out) {
  std::map<std::string, std::size_t> index;
  for (auto& call : recording.calls) {
    ++out.total_calls;
    // One case a case id: calls that differ only in their recorded value ranges merge (the
    // first one's ranges kept), as the config refuses two cases of one id.
    Json bare = call.args;
    for (auto& item : bare.items()) {
      if (item.value().is_object()) {
        item.value().erase("low");
        item.value().erase("high");
      }
    }
    const std::string key = call.op + " " + bare.dump();
    if (auto it = index.find(key); it != index.end()) {
      ++out.calls[it->second].count;
      continue;
    }
    RecordedCall recorded{call.op, call.args, 1, call.unsupported};
    if (recorded.unsupported.empty()) {
      try {
        catalog::bind_case(recorded.op, recorded.args, where);
      } catch (const ConfigError& e) {
        std::string message = e.what();
        recorded.unsupported =
            message.substr(message.find(": ") == std::string::npos ? 0 : message.find(": ") + 2);
      }
    }
    index.emplace(key, out.calls.size());
    out.calls.push_back(std::move(recorded));
  }
}

} // namespace

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

  measure::Recording recording;
  {
    // The unoptimised graph: the calls the model's code makes, not a fused rewrite of them.
    torch::jit::GraphOptimizerEnabledGuard no_optimization(false);
    at::NoGradGuard no_grad;
    measure::RecordOptions record_options;
    record_options.value_ranges = true;
    try {
      recording = measure::record_aten_calls([&] { module.forward(values); }, record_options);
    } catch (const std::exception& e) {
      std::string message = e.what();
      throw Error(model + ": forward failed on the given inputs (" +
                  message.substr(0, message.find('\n')) + ")");
    }
  }

  merge_calls(recording, model, out);
  return out;
}

Extraction extract_case(const results::Case& c) {
  Extraction out;
  out.case_key = results::case_key(c.case_id);
  measure::Recording recording;
  {
    at::NoGradGuard no_grad;
    measure::RecordOptions record_options;
    record_options.value_ranges = true;
    try {
      recording = exec::record_case(c, record_options);
    } catch (const std::exception& e) {
      const std::string message = e.what();
      throw Error(c.case_id + ": cannot record its calls (" +
                  message.substr(0, message.find('\n')) + ")");
    }
  }
  merge_calls(recording, c.case_id, out);
  return out;
}

Json to_config(const std::vector<Extraction>& extractions) {
  // One operator entry per ATen operator, in order of first call.
  Json operators = Json::array();
  std::map<std::string, std::size_t> position;
  Json recorded_cases = Json::array();
  std::string name;
  for (const Extraction& extraction : extractions) {
    name = !extraction.case_key.empty()   ? extraction.case_key
           : !extraction.exported.empty() ? core::filename(extraction.exported)
                                          : core::filename(extraction.model);
    if (!extraction.case_key.empty()) {
      recorded_cases.push_back(
          {{"case", extraction.case_key}, {"top_level_calls", extraction.total_calls}});
    }
    for (const auto& call : extraction.calls) {
      auto it = position.find(call.op);
      if (it == position.end()) {
        it = position.emplace(call.op, operators.size()).first;
        operators.push_back({{"op", call.op},
                             {"category", extraction.case_key.empty() ? "model" : "sample"},
                             {"tags", {"extracted"}},
                             {"cases", Json::array()}});
      }
      Json c = {
          {"args", call.args}, {"shape_class", "common"}, {"source", name}, {"count", call.count}};
      if (!call.dims.empty())
        c["dims"] = call.dims;
      if (!call.unsupported.empty())
        c["unsupported"] = call.unsupported;
      operators[it->second]["cases"].push_back(c);
    }
  }
  if (!recorded_cases.empty()) {
    return {{"description", "ATen calls of " + std::to_string(recorded_cases.size()) +
                                " case(s), recorded by opbench extract --sample"},
            {"sample_cases", recorded_cases},
            {"operators", operators}};
  }
  const Extraction& extraction = extractions.at(0);
  if (!extraction.exported.empty()) {
    return {
        {"description", "operator calls of " + name + " (torch.export), read by opbench extract"},
        {"exported",
         {{"path", extraction.exported},
          {"torch", extraction.torch_version},
          {"top_level_calls", extraction.total_calls},
          {"dims", extraction.program_dims},
          {"inputs", extraction.program_inputs},
          {"left_out", extraction.left_out}}},
        {"operators", operators}};
  }
  Json model = {{"path", extraction.model}, {"top_level_calls", extraction.total_calls}};
  Json inputs = Json::array();
  for (const auto& input : extraction.inputs)
    inputs.push_back(input.str());
  model["inputs"] = inputs;
  return {{"description", "ATen calls of " + name + ", recorded by opbench extract"},
          {"model", model},
          {"operators", operators}};
}

} // namespace opbench::extract
