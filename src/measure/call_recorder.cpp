#include "opbench/measure/call_recorder.hpp"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "opbench/core/strings.hpp"
#include "opbench/machine/devices.hpp"

namespace opbench::measure {

using machine::dtype_name;

namespace {

// The recorder's state: one thread, one recording.
struct State {
  Recording* out = nullptr;
  RecordOptions options;
  int depth = 0;
  bool recording_top = false; // the current top-level call is being recorded
  // Its tensor inputs: at the call's end RecordFunction's inputs are gone (a typed call boxes
  // them into a temporary), so the aliasing check of its outputs uses these.
  std::vector<at::Tensor> top_inputs;
};
thread_local State t_state;

// Calls that make the host wait for the device: they read a value (or a count) that the host
// needs before it can go on.
bool synchronises(const char* name) {
  static const char* const k_syncing[] = {"aten::_local_scalar_dense",
                                          "aten::item",
                                          "aten::nonzero",
                                          "aten::masked_select",
                                          "aten::is_nonzero",
                                          "aten::equal",
                                          "aten::allclose",
                                          "aten::_unique",
                                          "aten::_unique2",
                                          "aten::unique_dim",
                                          "aten::unique_consecutive",
                                          "aten::bincount",
                                          "aten::repeat_interleave",
                                          "aten::nonzero_numpy",
                                          "aten::argwhere",
                                          "aten::tolist"};
  return std::any_of(std::begin(k_syncing), std::end(k_syncing),
                     [name](const char* s) { return std::strcmp(name, s) == 0; });
}

// A copy to the host (`.cpu()`, `.to(kCPU, ..., copy)`): the host waits for the tensor whenever it
// is on a device. On the CPU it is the same call, so a CPU run sees it too.
bool copies_to_host(const at::RecordFunction& fn) {
  if (std::strcmp(fn.name(), "aten::_to_copy") != 0)
    return false;
  const auto inputs = fn.inputs();
  return std::any_of(inputs.begin(), inputs.end(),
                     [](const c10::IValue& v) { return v.isDevice() && v.toDevice().is_cpu(); });
}

// A tensor as a config spec. With value ranges, integer tensors keep the range of their values
// (indices stay valid), boolean ones are random masks; floating values are regenerated.
Json tensor_json(const at::Tensor& t, bool value_ranges, std::string& unsupported) {
  const std::string dtype = dtype_name(t.scalar_type());
  if (dtype.empty()) {
    unsupported =
        std::string("tensor of dtype ") + c10::toString(t.scalar_type()) + " has no config form";
    return nullptr;
  }
  Json spec = {{"shape", t.sizes().vec()}, {"dtype", dtype}};
  if (!value_ranges)
    return spec;
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

Json value_json(const c10::IValue& v, bool value_ranges, std::string& unsupported) {
  if (v.isNone())
    return nullptr;
  if (v.isTensor()) {
    return v.toTensor().defined() ? tensor_json(v.toTensor(), value_ranges, unsupported)
                                  : Json(nullptr);
  }
  if (v.isTensorList()) {
    Json list = Json::array();
    for (const at::Tensor& t : v.toTensorVector())
      list.push_back(tensor_json(t, value_ranges, unsupported));
    return list;
  }
  if (v.isList()) {
    Json list = Json::array();
    for (const c10::IValue& item : v.toListRef())
      list.push_back(value_json(item, value_ranges, unsupported));
    return list;
  }
  if (v.isInt())
    return v.toInt();
  if (v.isDouble())
    return v.toDouble();
  if (v.isBool())
    return v.toBool();
  if (v.isString())
    return v.toStringRef();
  if (v.isScalar()) {
    const at::Scalar s = v.toScalar();
    if (s.isIntegral(false))
      return s.toLong();
    if (s.isBoolean())
      return s.toBool();
    return s.toDouble();
  }
  if (v.isDevice())
    return "case";
  unsupported = "an argument of kind " + v.tagKind() + " has no config form";
  return nullptr;
}

// Calls that draw random numbers from a generator.
bool draws_random(const char* name) {
  static const char* const k_random[] = {
      "rand",    "normal",      "bernoulli",       "dropout",          "multinomial",
      "uniform", "exponential", "cauchy",          "geometric",        "log_normal",
      "poisson", "binomial",    "_standard_gamma", "_sample_dirichlet"};
  return std::any_of(std::begin(k_random), std::end(k_random),
                     [name](const char* s) { return std::strstr(name, s) != nullptr; });
}

cost::TensorInfo info_of(const std::string& argument, const at::Tensor& t) {
  return cost::TensorInfo{argument, t.sizes().vec(), static_cast<std::int64_t>(t.element_size())};
}

HostSync sync_of(const char* name, c10::ArrayRef<c10::IValue> inputs) {
  HostSync sync{name, nullptr, true};
  for (const auto& v : inputs) {
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().has_storage()) {
      sync.storage = v.toTensor().storage().data();
      sync.on_cpu = v.toTensor().is_cpu();
      break;
    }
  }
  return sync;
}

void record_top(const at::RecordFunction& fn, RecordedCall& call) {
  const auto name = fn.operator_name();
  const auto schema = fn.operator_schema();
  call.op = name->overload_name.empty() ? name->name : name->name + "." + name->overload_name;
  call.shapes.op = call.op;
  const auto& returns = schema->returns();
  call.shapes.view =
      !returns.empty() && std::all_of(returns.begin(), returns.end(), [](const auto& r) {
        return r.alias_info() != nullptr && !r.alias_info()->isWrite();
      });
  const auto inputs = fn.inputs();
  const auto& arguments = schema->arguments();
  // The interpreter may hand over more stack values than the schema has arguments (the module
  // object of the method the call sits in comes first): the arguments are the last ones.
  const std::size_t offset =
      inputs.size() > arguments.size() ? inputs.size() - arguments.size() : 0;
  bool has_tensor = false, has_device = false, device_given = false;
  for (std::size_t i = 0; i < arguments.size() && i + offset < inputs.size(); ++i) {
    const c10::IValue& v = inputs[i + offset];
    const auto kind = arguments[i].real_type()->kind();
    const auto base =
        kind == c10::TypeKind::OptionalType
            ? arguments[i].real_type()->castRaw<c10::OptionalType>()->getElementType()->kind()
            : kind;
    if (base == c10::TypeKind::DeviceObjType) {
      has_device = true;
      device_given = !v.isNone();
      continue;
    }
    if (kind == c10::TypeKind::GeneratorType || base == c10::TypeKind::GeneratorType)
      continue;
    if (v.isTensor() && v.toTensor().defined()) {
      has_tensor = true;
      call.shapes.inputs.push_back(info_of(arguments[i].name(), v.toTensor()));
      t_state.top_inputs.push_back(v.toTensor());
    } else if (v.isTensorList()) {
      has_tensor = true;
      for (const at::Tensor& t : v.toTensorVector()) {
        call.shapes.inputs.push_back(info_of(arguments[i].name(), t));
        t_state.top_inputs.push_back(t);
      }
    }
    Json value = value_json(v, t_state.options.value_ranges, call.unsupported);
    if (value.is_null())
      continue; // None: the schema's default
    // ScalarType, Layout and MemoryFormat arrive as ints.
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
    if (!v.isTensor() && !v.isTensorList())
      call.shapes.arguments[arguments[i].name()] = value;
    call.args[arguments[i].name()] = std::move(value);
  }
  call.default_device = has_device && !device_given && !has_tensor;
}

// Outputs that do not alias a tensor input (views and in-place results move no new bytes).
void record_outputs(const at::RecordFunction& fn, RecordedCall& call) {
  const std::vector<at::Tensor>& inputs = t_state.top_inputs;
  auto add = [&](const c10::IValue& v) {
    if (!v.isTensor() || !v.toTensor().defined())
      return;
    const at::Tensor& t = v.toTensor();
    for (const auto& in : inputs) {
      if (t.is_alias_of(in))
        return;
    }
    call.shapes.outputs.push_back(info_of("", t));
  };
  for (const auto& v : fn.outputs()) {
    if (v.isTuple()) {
      for (const auto& item : v.toTupleRef().elements())
        add(item);
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector())
        add(t);
    } else {
      add(v);
    }
  }
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  State& s = t_state;
  const int depth = s.depth++;
  if (s.out == nullptr || std::strncmp(fn.name(), "aten::", 6) != 0)
    return nullptr;
  if (synchronises(fn.name()) || copies_to_host(fn))
    s.out->syncs.push_back(sync_of(fn.name(), fn.inputs()));
  if (draws_random(fn.name()))
    s.out->random.emplace_back(fn.name());
  if (depth > 0)
    return nullptr;
  s.recording_top = false;
  if (!fn.operator_name() || !fn.operator_schema())
    return nullptr;
  RecordedCall call;
  s.top_inputs.clear();
  record_top(fn, call);
  s.out->calls.push_back(std::move(call));
  s.recording_top = true;
  return nullptr;
}

void on_end(const at::RecordFunction& fn, at::ObserverContext* /*context*/) {
  State& s = t_state;
  if (--s.depth == 0 && s.recording_top && s.out != nullptr) {
    record_outputs(fn, s.out->calls.back());
    s.recording_top = false;
    s.top_inputs.clear();
  }
}

} // namespace

Recording record_aten_calls(const std::function<void()>& code, const RecordOptions& options) {
  Recording out;
  at::RecordFunctionGuard enabled(true);
  t_state = State{&out, options, 0, false, {}};
  const auto handle = at::addThreadLocalCallback(at::RecordFunctionCallback(on_start, on_end)
                                                     .needsInputs(true)
                                                     .needsOutputs(true)
                                                     .scopes({at::RecordScope::FUNCTION}));
  try {
    code();
  } catch (...) {
    at::removeCallback(handle);
    t_state = State{};
    throw;
  }
  at::removeCallback(handle);
  t_state = State{};
  return out;
}

std::int64_t count_aten_calls(const std::function<void()>& code) {
  return static_cast<std::int64_t>(record_aten_calls(code).calls.size());
}

cost::Cost work_of(const std::vector<RecordedCall>& calls) {
  cost::Cost total;
  double flops = 0;
  std::size_t without_rule = 0;
  for (const auto& call : calls) {
    const cost::Cost c = cost::estimate(call.shapes);
    total.bytes += c.bytes;
    if (c.flops) {
      flops += *c.flops;
    } else {
      ++without_rule;
    }
  }
  if (calls.size() == 1)
    return cost::estimate(calls.front().shapes);
  if (without_rule == 0 && !calls.empty()) {
    total.flops = flops;
    total.flops_rule = "sum over " + std::to_string(calls.size()) + " ATen calls";
  }
  return total;
}

} // namespace opbench::measure
