#include "opbench/extract/extract.hpp"

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/serialization/import.h>

#include <filesystem>
#include <map>

#include "opbench/catalog/binder.hpp"
#include "opbench/catalog/tensor_spec.hpp"
#include "opbench/core/dtype.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/exec/inputs.hpp"
#include "opbench/plan/case.hpp"

namespace opbench::extract {

InputSpec InputSpec::parse(const std::string& text) {
  const auto parts = core::split(text, ':');
  if (parts.empty() || parts.size() > 2) {
    throw UsageError("bad --input '" + text + "', expected DIMS[:DTYPE] such as 1x3x224x224:float32");
  }
  InputSpec spec;
  try {
    spec.shape = catalog::TensorSpec::parse(Json(parts[0]), "--input").shape;
  } catch (const ConfigError& e) {
    throw UsageError(std::string("bad --input '") + text + "': " + e.what());
  }
  if (parts.size() == 2) spec.dtype = core::canonical_dtype(parts[1]);
  return spec;
}

std::string InputSpec::str() const {
  std::vector<std::string> dims;
  for (auto d : shape) dims.push_back(std::to_string(d));
  return core::join(dims, "x") + ":" + dtype;
}

Json InputSpec::to_json() const { return {{"shape", shape}, {"dtype", dtype}}; }

namespace {

struct RawCall {
  std::string op;
  Json args;
  std::string unsupported;
};

// The recorder's state: one thread, one model run.
thread_local std::vector<RawCall>* t_calls = nullptr;
thread_local int t_depth = 0;

std::string dtype_name(at::ScalarType type) {
  switch (type) {
    case at::kFloat: return "float32";
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kDouble: return "float64";
    case at::kChar: return "int8";
    case at::kByte: return "uint8";
    case at::kShort: return "int16";
    case at::kInt: return "int32";
    case at::kLong: return "int64";
    case at::kBool: return "bool";
    case at::kComplexFloat: return "complex64";
    case at::kComplexDouble: return "complex128";
    default: return "";
  }
}

// A tensor as a config spec. Integer tensors keep the range of their values (indices stay
// valid), boolean ones are random masks; floating values are regenerated.
Json tensor_json(const at::Tensor& t, std::string& unsupported) {
  const std::string dtype = dtype_name(t.scalar_type());
  if (dtype.empty()) {
    unsupported = std::string("tensor of dtype ") + c10::toString(t.scalar_type()) + " has no config form";
    return nullptr;
  }
  Json spec = {{"shape", t.sizes().vec()}, {"dtype", dtype}};
  if (at::isIntegralType(t.scalar_type(), /*includeBool=*/false) && t.numel() > 0) {
    spec["init"] = "randint";
    spec["low"] = t.min().item<double>();
    spec["high"] = t.max().item<double>() + 1;
  } else if (t.scalar_type() == at::kBool) {
    spec["init"] = "bool";
  } else if (at::isFloatingType(t.scalar_type()) && t.numel() > 0) {
    // Non-negative values (variances, probabilities) stay non-negative, in their range.
    const double low = t.min().item<double>(), high = t.max().item<double>();
    if (low >= 0 && high > low) {
      spec["init"] = "uniform";
      spec["low"] = low;
      spec["high"] = high;
    }
  }
  return spec;
}

Json value_json(const c10::IValue& v, std::string& unsupported) {
  if (v.isNone()) return nullptr;
  if (v.isTensor()) return v.toTensor().defined() ? tensor_json(v.toTensor(), unsupported) : Json(nullptr);
  if (v.isTensorList()) {
    Json list = Json::array();
    for (const at::Tensor& t : v.toTensorVector()) list.push_back(tensor_json(t, unsupported));
    return list;
  }
  if (v.isList()) {
    Json list = Json::array();
    for (const c10::IValue& item : v.toListRef()) list.push_back(value_json(item, unsupported));
    return list;
  }
  if (v.isInt()) return v.toInt();
  if (v.isDouble()) return v.toDouble();
  if (v.isBool()) return v.toBool();
  if (v.isString()) return v.toStringRef();
  if (v.isScalar()) {
    const at::Scalar s = v.toScalar();
    if (s.isIntegral(false)) return s.toLong();
    if (s.isBoolean()) return s.toBool();
    return s.toDouble();
  }
  if (v.isDevice()) return "case";
  unsupported = "an argument of kind " + v.tagKind() + " has no config form";
  return nullptr;
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  if (t_depth++ > 0 || t_calls == nullptr) return nullptr;
  const auto name = fn.operator_name();
  const auto schema = fn.operator_schema();
  if (!name || !schema || !core::starts_with(name->name, "aten::")) return nullptr;
  RawCall call;
  call.op = name->overload_name.empty() ? name->name : name->name + "." + name->overload_name;
  call.args = Json::object();
  const auto inputs = fn.inputs();
  const auto& arguments = schema->arguments();
  // The interpreter may hand over more stack values than the schema has arguments (the module
  // object of the method the call sits in comes first): the arguments are the last ones.
  const std::size_t offset = inputs.size() > arguments.size() ? inputs.size() - arguments.size() : 0;
  for (std::size_t i = 0; i < arguments.size() && i + offset < inputs.size(); ++i) {
    const auto kind = arguments[i].real_type()->kind();
    if (kind == c10::TypeKind::DeviceObjType || kind == c10::TypeKind::GeneratorType) continue;
    Json value = value_json(inputs[i + offset], call.unsupported);
    if (value.is_null()) continue;  // None: the schema's default
    // ScalarType, Layout and MemoryFormat arrive as ints.
    const auto base = arguments[i].real_type()->kind() == c10::TypeKind::OptionalType
                          ? arguments[i].real_type()->castRaw<c10::OptionalType>()->getElementType()->kind()
                          : kind;
    if (base == c10::TypeKind::ScalarTypeType && value.is_number_integer()) {
      value = dtype_name(static_cast<at::ScalarType>(value.get<int>()));
    } else if (base == c10::TypeKind::LayoutType) {
      continue;
    } else if (base == c10::TypeKind::MemoryFormatType && value.is_number_integer()) {
      const auto format = static_cast<at::MemoryFormat>(value.get<int>());
      value = format == at::MemoryFormat::ChannelsLast     ? "channels_last"
              : format == at::MemoryFormat::ChannelsLast3d ? "channels_last_3d"
              : format == at::MemoryFormat::Preserve       ? "preserve"
                                                           : "contiguous";
    }
    call.args[arguments[i].name()] = value;
  }
  t_calls->push_back(std::move(call));
  return nullptr;
}

void on_end(const at::RecordFunction& /*fn*/, at::ObserverContext* /*context*/) { --t_depth; }

}  // namespace

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
  plan::Case c;
  c.dtype = "float32";
  c.device = "cpu";
  c.seed = seed;
  c.origin = model;
  Json specs = Json::array();
  for (const auto& input : inputs) specs.push_back(input.to_json());
  const std::vector<c10::IValue> values = exec::make_tensors(c, specs);

  std::vector<RawCall> raw;
  {
    // The unoptimised graph: the calls the model's code makes, not a fused rewrite of them.
    torch::jit::GraphOptimizerEnabledGuard no_optimization(false);
    at::NoGradGuard no_grad;
    at::RecordFunctionGuard enabled(true);
    t_calls = &raw;
    t_depth = 0;
    const auto handle = at::addThreadLocalCallback(
        at::RecordFunctionCallback(on_start, on_end).needsInputs(true).scopes({at::RecordScope::FUNCTION}));
    try {
      module.forward(values);
    } catch (const std::exception& e) {
      at::removeCallback(handle);
      t_calls = nullptr;
      std::string message = e.what();
      throw Error(model + ": forward failed on the given inputs (" + message.substr(0, message.find('\n')) + ")");
    }
    at::removeCallback(handle);
    t_calls = nullptr;
  }

  std::map<std::string, std::size_t> index;
  for (auto& call : raw) {
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
        recorded.unsupported = message.substr(message.find(": ") == std::string::npos ? 0 : message.find(": ") + 2);
      }
    }
    index.emplace(key, out.calls.size());
    out.calls.push_back(std::move(recorded));
  }
  return out;
}

Json to_config(const Extraction& extraction) {
  const std::string name = std::filesystem::path(extraction.model).filename().string();
  Json model = {{"path", extraction.model}, {"top_level_calls", extraction.total_calls}};
  Json inputs = Json::array();
  for (const auto& input : extraction.inputs) inputs.push_back(input.str());
  model["inputs"] = inputs;
  // One operator entry per ATen operator, in order of first call.
  Json operators = Json::array();
  std::map<std::string, std::size_t> position;
  for (const auto& call : extraction.calls) {
    auto it = position.find(call.op);
    if (it == position.end()) {
      it = position.emplace(call.op, operators.size()).first;
      operators.push_back({{"op", call.op}, {"category", "model"}, {"tags", {"extracted"}}, {"cases", Json::array()}});
    }
    Json c = {{"args", call.args}, {"shape_class", "common"}, {"source", name}, {"count", call.count}};
    if (!call.unsupported.empty()) c["unsupported"] = call.unsupported;
    operators[it->second]["cases"].push_back(c);
  }
  return {{"description", "ATen calls of " + name + ", recorded by opbench extract"},
          {"model", model},
          {"operators", operators}};
}

}  // namespace opbench::extract
