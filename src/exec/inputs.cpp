#include "opbench/exec/inputs.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include "input_memo.hpp"
#include "opbench/catalog/schema_types.hpp"
#include "opbench/catalog/tensor_spec.hpp"
#include "opbench/core/error.hpp"
#include "opbench/machine/devices.hpp"

namespace opbench::exec {

using machine::device_of;
using machine::scalar_type;

namespace {

// What decides the values a case's generator draws: the same key, the same draws in order.
std::string draws_key(const results::Case& c) {
  return c.op + "|" + c.given.dump() + "|" + c.dtype + "|" + std::to_string(c.seed);
}

struct Maker {
  const results::Case& c;
  at::Generator generator;
  at::Device device;
  bool requires_grad;
  std::vector<at::Tensor> grad_inputs;
  std::string key = draws_key(c);
  std::size_t drawn = 0; // tensors made so far

  // A random draw, or the same draw kept by an earlier repetition (InputMemo), with the generator
  // left where drawing it would leave it. `kept` says the tensor is the memo's, not to be written.
  template <typename DrawFn> at::Tensor draw(DrawFn&& fresh, bool& kept) {
    InputMemo& memo = InputMemo::shared();
    const std::string draw_key = key + "#" + std::to_string(drawn);
    if (auto hit = memo.find(draw_key)) {
      std::lock_guard<std::mutex> lock(generator.mutex());
      generator.set_state(hit->generator_state);
      kept = true;
      return hit->values;
    }
    at::Tensor t = fresh();
    if (t.nbytes() >= InputMemo::k_min_bytes) {
      at::Tensor state;
      {
        std::lock_guard<std::mutex> lock(generator.mutex());
        state = generator.get_state();
      }
      memo.keep(draw_key, {t, state});
      kept = true;
    }
    return t;
  }

  at::Tensor tensor(const Json& json) {
    const auto spec = catalog::TensorSpec::parse(json, c.origin);
    const at::ScalarType dtype = scalar_type(spec.dtype.empty() ? c.dtype : spec.dtype);
    const bool floating = at::isFloatingType(dtype) || at::isComplexType(dtype);
    std::string init = spec.init;
    if (init.empty())
      init = floating ? "normal" : dtype == at::kBool ? "bool" : "randint";
    const at::IntArrayRef shape(spec.shape);
    const auto cpu_float =
        at::TensorOptions().dtype(dtype == at::kDouble ? at::kDouble : at::kFloat);
    const double low = spec.low.value_or(init == "positive" ? 0.5 : 0.0);
    const double high = spec.high.value_or(init == "positive"  ? 2.0
                                           : init == "randint" ? 10.0
                                                               : 1.0);
    at::Tensor t;
    bool kept = false;
    if (init == "normal") {
      t = draw([&] { return at::randn(shape, generator, cpu_float); }, kept);
    } else if (init == "uniform" || init == "positive") {
      t = draw([&] { return at::rand(shape, generator, cpu_float) * (high - low) + low; }, kept);
    } else if (init == "zeros") {
      t = at::zeros(shape, cpu_float);
    } else if (init == "ones") {
      t = at::ones(shape, cpu_float);
    } else if (init == "arange") {
      t = at::arange(spec.numel(), at::TensorOptions().dtype(at::kLong)).reshape(shape);
    } else if (init == "randint") {
      t = draw(
          [&] {
            return at::randint(static_cast<int64_t>(low), static_cast<int64_t>(high), shape,
                               generator, at::TensorOptions().dtype(at::kLong));
          },
          kept);
    } else if (init == "bool") {
      t = draw(
          [&] { return at::randint(0, 2, shape, generator, at::TensorOptions().dtype(at::kLong)); },
          kept);
    } else if (init == "sorted") {
      t = draw(
          [&] {
            return spec.shape.empty()
                       ? at::randn(shape, generator, cpu_float)
                       : std::get<0>(at::randn(shape, generator, cpu_float).sort(-1));
          },
          kept);
    } else {
      throw ConfigError(c.origin + ": unknown init '" + init + "'");
    }
    ++drawn;
    // Fresh memory for this repetition: a copy of a kept draw, never the draw itself.
    t = t.to(device, dtype, /*non_blocking=*/false, /*copy=*/kept).contiguous();
    if (c.memory_format == "channels_last" && (t.dim() == 4 || t.dim() == 5)) {
      t = t.contiguous(t.dim() == 4 ? at::MemoryFormat::ChannelsLast
                                    : at::MemoryFormat::ChannelsLast3d);
    }
    if (requires_grad && spec.requires_grad && at::isFloatingType(dtype)) {
      t.requires_grad_(true);
      grad_inputs.push_back(t);
    }
    return t;
  }

  c10::IValue value(const Json& json, const c10::TypePtr& type) {
    if (auto inner = catalog::optional_element(type)) {
      if (json.is_null())
        return c10::IValue();
      return value(json, inner);
    }
    switch (type->kind()) {
    case c10::TypeKind::TensorType:
      return tensor(json);
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
      return json.get<int64_t>();
    case c10::TypeKind::FloatType:
    case c10::TypeKind::SymFloatType:
      return json.get<double>();
    case c10::TypeKind::NumberType:
      if (json.is_boolean())
        return at::Scalar(json.get<bool>());
      if (json.is_number_integer())
        return at::Scalar(json.get<int64_t>());
      return at::Scalar(json.get<double>());
    case c10::TypeKind::BoolType:
    case c10::TypeKind::SymBoolType:
      return json.get<bool>();
    case c10::TypeKind::StringType:
      return json.get<std::string>();
    case c10::TypeKind::ScalarTypeType:
      return scalar_type(json.get<std::string>());
    case c10::TypeKind::MemoryFormatType: {
      const auto name = json.get<std::string>();
      if (name == "channels_last")
        return at::MemoryFormat::ChannelsLast;
      if (name == "channels_last_3d")
        return at::MemoryFormat::ChannelsLast3d;
      if (name == "preserve")
        return at::MemoryFormat::Preserve;
      return at::MemoryFormat::Contiguous;
    }
    case c10::TypeKind::LayoutType:
      return at::kStrided;
    case c10::TypeKind::DeviceObjType:
      return device;
    case c10::TypeKind::ListType: {
      const auto element = catalog::list_element(type);
      if (catalog::is_tensor(element)) {
        c10::List<at::Tensor> list;
        for (const auto& item : json)
          list.push_back(tensor(item));
        return list;
      }
      if (auto inner = catalog::optional_element(element); inner && catalog::is_tensor(inner)) {
        c10::List<std::optional<at::Tensor>> list;
        for (const auto& item : json) {
          list.push_back(item.is_null() ? std::optional<at::Tensor>() : tensor(item));
        }
        return list;
      }
      switch (element->kind()) {
      case c10::TypeKind::IntType:
      case c10::TypeKind::SymIntType:
        return c10::List<int64_t>(json.get<std::vector<int64_t>>());
      case c10::TypeKind::FloatType:
        return c10::List<double>(json.get<std::vector<double>>());
      case c10::TypeKind::BoolType: {
        c10::List<bool> list;
        for (const auto& item : json)
          list.push_back(item.get<bool>());
        return list;
      }
      default:
        break;
      }
      break;
    }
    case c10::TypeKind::GeneratorType:
      return c10::IValue();
    default:
      break;
    }
    throw ConfigError(c.origin + ": arguments of type " + type->str() + " are not supported");
  }
};

bool is_device_type(const c10::TypePtr& type) {
  const auto inner = catalog::optional_element(type);
  return (inner ? inner : type)->kind() == c10::TypeKind::DeviceObjType;
}

} // namespace

std::vector<c10::IValue> make_tensors(const results::Case& c, const Json& specs) {
  Maker maker{c, at::make_generator<at::CPUGeneratorImpl>(c.seed), device_of(c.device), false, {}};
  std::vector<c10::IValue> out;
  for (const auto& spec : specs)
    out.emplace_back(maker.tensor(spec));
  return out;
}

PreparedCall prepare_call(const results::Case& c, bool requires_grad) {
  const auto dot = c.op.find('.', c.op.find("::") + 2);
  const std::string name = dot == std::string::npos ? c.op : c.op.substr(0, dot);
  const std::string overload = dot == std::string::npos ? "" : c.op.substr(dot + 1);
  PreparedCall call{catalog::find_operator(name, overload, c.origin), {}, {}};
  Maker maker{
      c, at::make_generator<at::CPUGeneratorImpl>(c.seed), device_of(c.device), requires_grad, {}};
  for (const auto& arg : call.handle.schema().arguments()) {
    if (c.given.contains(arg.name())) {
      call.args.push_back(maker.value(c.given[arg.name()], arg.real_type()));
    } else if (is_device_type(arg.real_type())) {
      call.args.emplace_back(maker.device); // creation ops make their tensors on the case's device
    } else if (arg.default_value()) {
      call.args.push_back(*arg.default_value());
    } else {
      call.args.emplace_back(); // an Optional left out
    }
  }
  call.grad_inputs = std::move(maker.grad_inputs);
  return call;
}

} // namespace opbench::exec
