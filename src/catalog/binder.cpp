#include "opbench/catalog/binder.hpp"

#include <ATen/core/dispatch/Dispatcher.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "opbench/catalog/libraries.hpp"
#include "opbench/catalog/schema_types.hpp"
#include "opbench/catalog/tensor_spec.hpp"
#include "opbench/core/dtype.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::catalog {

c10::TypePtr optional_element(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::OptionalType) {
    return type->castRaw<c10::OptionalType>()->getElementType();
  }
  return nullptr;
}

c10::TypePtr list_element(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::ListType) {
    return type->castRaw<c10::ListType>()->getElementType();
  }
  return nullptr;
}

bool is_tensor(const c10::TypePtr& type) {
  return type->kind() == c10::TypeKind::TensorType;
}

c10::OperatorHandle find_operator(const std::string& name, const std::string& overload,
                                  const std::string& where) {
  auto handle = c10::Dispatcher::singleton().findSchema({name, overload});
  if (!handle) {
    const std::string hint = missing_operator_hint(name);
    throw ConfigError(where + ": LibTorch has no operator " + name +
                      (overload.empty() ? "" : "." + overload) +
                      (hint.empty() ? "" : " (" + hint + ")"));
  }
  return *handle;
}

std::string BoundOp::qualified() const {
  return overload.empty() ? name : name + "." + overload;
}

namespace {

std::string schema_text(const c10::FunctionSchema& schema) {
  std::ostringstream out;
  out << schema;
  return out.str();
}

// Overload names of every operator, by operator name ("aten::add" -> {"Tensor", "Scalar", ...}).
// Made again after a library is loaded (libraries.hpp), which adds operators.
const std::map<std::string, std::vector<std::string>>& overload_index() {
  static std::map<std::string, std::vector<std::string>> k_index;
  static std::size_t k_made_with = static_cast<std::size_t>(-1); // libraries loaded then
  if (k_made_with != loaded_libraries().size()) {
    k_index.clear();
    for (const auto& name : c10::Dispatcher::singleton().getAllOpNames()) {
      k_index[name.name].push_back(name.overload_name);
    }
    for (auto& item : k_index)
      std::sort(item.second.begin(), item.second.end());
    k_made_with = loaded_libraries().size();
  }
  return k_index;
}

// "conv2d" -> ("aten::conv2d", ""); "add.Tensor" -> ("aten::add", "Tensor").
std::pair<std::string, std::optional<std::string>> split_op(const std::string& op) {
  std::string name = core::trim(op);
  std::optional<std::string> overload;
  const auto colons = name.find("::");
  const auto dot = name.find('.', colons == std::string::npos ? 0 : colons + 2);
  if (dot != std::string::npos) {
    overload = name.substr(dot + 1);
    name = name.substr(0, dot);
    if (*overload == "default")
      overload = ""; // TorchScript's spelling of the default overload
  }
  if (name.find("::") == std::string::npos)
    name = "aten::" + name;
  return {name, overload};
}

// Writes to an argument that is keyword-only: an out= variant.
bool is_out_variant(const c10::FunctionSchema& schema) {
  return std::any_of(schema.arguments().begin(), schema.arguments().end(), [](const auto& arg) {
    return arg.kwarg_only() && arg.alias_info() && arg.alias_info()->isWrite();
  });
}

std::string type_name(const c10::TypePtr& type) {
  return type->str();
}

std::vector<std::int64_t> int_list(const Json& value, const std::optional<int32_t>& n,
                                   const std::string& where) {
  if (value.is_number_integer()) {
    return std::vector<std::int64_t>(static_cast<std::size_t>(n.value_or(1)),
                                     value.get<std::int64_t>());
  }
  if (value.is_string()) {
    // `3x3` shorthand, as for shapes.
    return TensorSpec::parse(value, where).shape;
  }
  if (!value.is_array())
    throw ConfigError(where + ": expected a list of integers, found " + value.dump());
  std::vector<std::int64_t> out;
  for (const auto& item : value) {
    if (!item.is_number_integer()) {
      throw ConfigError(where + ": expected a list of integers, found " + value.dump());
    }
    out.push_back(item.get<std::int64_t>());
  }
  return out;
}

// Normalises one given value to the canonical JSON form of its schema type.
Json normalize(const Json& value, const c10::TypePtr& type, const std::optional<int32_t>& n,
               const std::string& where) {
  if (auto inner = optional_element(type)) {
    if (value.is_null())
      return nullptr;
    return normalize(value, inner, n, where);
  }
  if (value.is_null())
    throw ConfigError(where + ": cannot be None (type " + type_name(type) + ")");
  switch (type->kind()) {
  case c10::TypeKind::TensorType:
    if (value.is_number() || value.is_boolean()) {
      throw ConfigError(where + ": expected a tensor shape like [8,16] or 8x16, found " +
                        value.dump());
    }
    return TensorSpec::parse(value, where).to_json();
  case c10::TypeKind::IntType:
  case c10::TypeKind::SymIntType:
    if (!value.is_number_integer())
      throw ConfigError(where + ": expected an integer, found " + value.dump());
    return value;
  case c10::TypeKind::FloatType:
  case c10::TypeKind::SymFloatType:
    if (!value.is_number())
      throw ConfigError(where + ": expected a number, found " + value.dump());
    return value.get<double>();
  case c10::TypeKind::NumberType:
    if (!value.is_number() && !value.is_boolean()) {
      throw ConfigError(where + ": expected a number, found " + value.dump());
    }
    return value;
  case c10::TypeKind::BoolType:
  case c10::TypeKind::SymBoolType:
    if (!value.is_boolean())
      throw ConfigError(where + ": expected true or false, found " + value.dump());
    return value;
  case c10::TypeKind::StringType:
    if (!value.is_string())
      throw ConfigError(where + ": expected a string, found " + value.dump());
    return value;
  case c10::TypeKind::ScalarTypeType:
    if (!value.is_string())
      throw ConfigError(where + ": expected a dtype name, found " + value.dump());
    try {
      return core::canonical_dtype(value.get<std::string>());
    } catch (const UsageError& e) {
      throw ConfigError(where + ": " + e.what());
    }
  case c10::TypeKind::MemoryFormatType: {
    static const std::vector<std::string> k_formats = {"contiguous", "channels_last",
                                                       "channels_last_3d", "preserve"};
    if (!value.is_string() || std::find(k_formats.begin(), k_formats.end(),
                                        value.get<std::string>()) == k_formats.end()) {
      throw ConfigError(where + ": expected one of " + core::join(k_formats, ", ") + ", found " +
                        value.dump());
    }
    return value;
  }
  case c10::TypeKind::LayoutType:
    if (value != "strided")
      throw ConfigError(where + ": only the 'strided' layout is supported");
    return value;
  case c10::TypeKind::DeviceObjType:
    if (value != "case") {
      throw ConfigError(
          where + ": a device argument is the case's device; write \"case\" or leave it empty");
    }
    return value;
  case c10::TypeKind::ListType: {
    const auto element = list_element(type);
    if (is_tensor(element) || (optional_element(element) && is_tensor(optional_element(element)))) {
      Json items = value;
      if (value.is_string()) { // "2x3;2x3"
        items = Json::array();
        for (const auto& piece : core::split(value.get<std::string>(), ';', true))
          items.push_back(piece);
      }
      if (!items.is_array()) {
        throw ConfigError(where + ": expected a list of tensor shapes like [[2,3],[2,3]], found " +
                          value.dump());
      }
      Json out = Json::array();
      for (const auto& item : items)
        out.push_back(normalize(item, element, std::nullopt, where));
      return out;
    }
    switch (element->kind()) {
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
      return int_list(value, n, where);
    case c10::TypeKind::FloatType:
    case c10::TypeKind::BoolType: {
      Json items = value.is_array() ? value : Json::array({value});
      Json out = Json::array();
      for (const auto& item : items)
        out.push_back(normalize(item, element, std::nullopt, where));
      return out;
    }
    default:
      break;
    }
    break;
  }
  default:
    break;
  }
  throw ConfigError(where + ": arguments of type " + type_name(type) + " are not supported");
}

// A schema default as JSON.
Json default_json(const c10::IValue& value, const c10::TypePtr& type) {
  if (value.isNone())
    return nullptr;
  auto base = optional_element(type) ? optional_element(type) : type;
  if (base->kind() == c10::TypeKind::ScalarTypeType && value.isInt()) {
    return std::string(c10::toString(static_cast<c10::ScalarType>(value.toInt())));
  }
  if (base->kind() == c10::TypeKind::MemoryFormatType && value.isInt()) {
    switch (static_cast<c10::MemoryFormat>(value.toInt())) {
    case c10::MemoryFormat::ChannelsLast:
      return "channels_last";
    case c10::MemoryFormat::ChannelsLast3d:
      return "channels_last_3d";
    case c10::MemoryFormat::Preserve:
      return "preserve";
    default:
      return "contiguous";
    }
  }
  if (value.isInt())
    return value.toInt();
  if (value.isDouble())
    return value.toDouble();
  if (value.isBool())
    return value.toBool();
  if (value.isString())
    return value.toStringRef();
  if (value.isIntList())
    return value.toIntVector();
  if (value.isDoubleList())
    return value.toDoubleVector();
  if (value.isBoolList()) {
    Json out = Json::array();
    for (bool b : value.toBoolList())
      out.push_back(b);
    return out;
  }
  std::ostringstream text;
  text << value;
  return text.str();
}

BoundOp bind_to(const c10::OperatorHandle& handle, const Json& args, const std::string& where) {
  const c10::FunctionSchema& schema = handle.schema();
  BoundOp bound;
  bound.name = schema.name();
  bound.overload = schema.overload_name();
  bound.schema = schema_text(schema);
  bound.given = Json::object();
  bound.arguments = Json::object();
  const std::string op_text = bound.qualified();

  std::vector<std::string> valid;
  for (const auto& arg : schema.arguments())
    valid.push_back(arg.name());
  for (const auto& item : args.items()) {
    if (std::find(valid.begin(), valid.end(), item.key()) == valid.end()) {
      throw ConfigError(where + ": unknown argument '" + item.key() + "' for " + op_text +
                        " (valid: " + core::join(valid, ", ") + ")");
    }
  }
  for (const auto& arg : schema.arguments()) {
    const auto& type = arg.real_type();
    const std::string arg_where =
        where + ": argument '" + arg.name() + "' of " + op_text + " (" + type_name(type) + ")";
    if (args.contains(arg.name())) {
      Json value = normalize(args[arg.name()], type, arg.N(), arg_where);
      bound.given[arg.name()] = value;
      bound.arguments[arg.name()] = value;
    } else if (arg.default_value()) {
      bound.arguments[arg.name()] = default_json(*arg.default_value(), type);
    } else if (optional_element(type) || type->kind() == c10::TypeKind::DeviceObjType) {
      bound.arguments[arg.name()] = nullptr;
    } else {
      throw ConfigError(where + ": missing required argument '" + arg.name() + "' for " + op_text +
                        " (valid: " + core::join(valid, ", ") + ")");
    }
  }
  return bound;
}

} // namespace

BoundOp bind_case(const std::string& op, const Json& args, const std::string& where) {
  const auto [name, overload] = split_op(op);
  if (overload)
    return bind_to(find_operator(name, *overload, where), args, where);

  const auto& index = overload_index();
  const auto it = index.find(name);
  if (it == index.end()) {
    const std::string hint = missing_operator_hint(name);
    throw ConfigError(where + ": LibTorch has no operator " + name + " (" +
                      (hint.empty() ? "opbench list --all shows every operator" : hint) + ")");
  }
  // The default overload first, then the rest by name; out= variants never.
  std::vector<c10::OperatorHandle> candidates;
  for (const auto& overload_name : it->second) {
    auto handle = c10::Dispatcher::singleton().findSchema({name, overload_name});
    if (!handle || is_out_variant(handle->schema()))
      continue;
    if (overload_name.empty()) {
      candidates.insert(candidates.begin(), *handle);
    } else {
      candidates.push_back(*handle);
    }
  }
  if (candidates.empty())
    throw ConfigError(where + ": " + name + " has only out= overloads");
  if (candidates.size() == 1)
    return bind_to(candidates.front(), args, where);
  std::vector<std::string> failures;
  std::vector<std::string> generic; // each failure with the overload's name taken out
  for (const auto& handle : candidates) {
    try {
      return bind_to(handle, args, where);
    } catch (const ConfigError& e) {
      std::string message = e.what();
      if (core::starts_with(message, where + ": "))
        message = message.substr(where.size() + 2);
      failures.push_back("  " + message);
      const auto& schema = handle.schema();
      const std::string qualified = schema.overload_name().empty()
                                        ? schema.name()
                                        : schema.name() + "." + schema.overload_name();
      if (const auto at = message.find(qualified); at != std::string::npos) {
        message.replace(at, qualified.size(), name);
      }
      generic.push_back(message);
    }
  }
  // Every overload failed the same way (an unknown or missing name): say it once.
  if (std::all_of(generic.begin(), generic.end(),
                  [&](const auto& m) { return m == generic.front(); })) {
    throw ConfigError(where + ": " + generic.front());
  }
  throw ConfigError(where + ": the arguments fit no overload of " + name + ":\n" +
                    core::join(failures, "\n"));
}

std::vector<std::string> registered_operators() {
  std::vector<std::string> out;
  for (const auto& item : overload_index()) {
    for (const auto& overload : item.second) {
      out.push_back(overload.empty() ? item.first : item.first + "." + overload);
    }
  }
  return out;
}

std::vector<std::string> schemas_of(const std::string& op) {
  const auto [name, overload] = split_op(op);
  std::vector<std::string> out;
  const auto& index = overload_index();
  const auto it = index.find(name);
  if (it == index.end())
    return out;
  for (const auto& overload_name : it->second) {
    if (overload && overload_name != *overload)
      continue;
    if (auto handle = c10::Dispatcher::singleton().findSchema({name, overload_name})) {
      out.push_back(schema_text(handle->schema()));
    }
  }
  return out;
}

} // namespace opbench::catalog
