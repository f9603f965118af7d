#include "opbench/catalog/tensor_spec.hpp"

#include <algorithm>
#include <cctype>

#include "opbench/core/dtype.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::catalog {
namespace {

std::vector<std::int64_t> parse_dims_json(const Json& value, const std::string& where);

std::vector<std::int64_t> parse_dims_text(const std::string& text, const std::string& where) {
  const std::string trimmed = core::trim(text);
  if (trimmed.empty() || trimmed == "scalar" || trimmed == "[]")
    return {};
  if (trimmed.front() == '[') {
    const std::optional<Json> list = core::parse_json(trimmed);
    if (list && list->is_array())
      return parse_dims_json(*list, where);
  }
  std::vector<std::int64_t> dims;
  for (const auto& piece : core::split(trimmed, 'x')) {
    const std::string digits = core::trim(piece);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(),
                                       [](unsigned char c) { return std::isdigit(c) != 0; })) {
      throw ConfigError(where + ": bad shape '" + text +
                        "', expected dimensions like 32x3x224x224 or [32,3,224,224]");
    }
    dims.push_back(std::stoll(digits));
  }
  return dims;
}

std::vector<std::int64_t> parse_dims_json(const Json& value, const std::string& where) {
  if (value.is_string())
    return parse_dims_text(value.get<std::string>(), where);
  if (value.is_number_integer())
    return {value.get<std::int64_t>()};
  if (!value.is_array()) {
    throw ConfigError(where + ": bad shape " + value.dump() +
                      ", expected a list of sizes like [32,3,224,224]");
  }
  std::vector<std::int64_t> dims;
  for (const auto& dim : value) {
    if (!dim.is_number_integer() || dim.get<std::int64_t>() < 0) {
      throw ConfigError(where + ": bad shape " + value.dump() +
                        ", expected non-negative integer sizes");
    }
    dims.push_back(dim.get<std::int64_t>());
  }
  return dims;
}

} // namespace

const std::vector<std::string>& init_names() {
  static const std::vector<std::string> k_names = {"normal", "uniform", "positive", "zeros", "ones",
                                                   "arange", "randint", "bool",     "sorted"};
  return k_names;
}

TensorSpec TensorSpec::parse(const Json& value, const std::string& where) {
  TensorSpec spec;
  if (value.is_array() || value.is_number_integer()) {
    spec.shape = parse_dims_json(value, where);
    return spec;
  }
  if (value.is_string()) {
    // `dims[:dtype[:init]]`
    const auto parts = core::split(value.get<std::string>(), ':');
    if (parts.size() > 3) {
      throw ConfigError(where + ": bad tensor '" + value.get<std::string>() +
                        "', expected SHAPE[:DTYPE[:INIT]] such as 1000:int64:randint");
    }
    spec.shape = parse_dims_text(parts[0], where);
    try {
      if (parts.size() > 1 && !core::trim(parts[1]).empty()) {
        spec.dtype = core::canonical_dtype(parts[1]);
      }
    } catch (const UsageError& e) {
      throw ConfigError(where + ": " + e.what());
    }
    if (parts.size() > 2)
      spec.init = core::trim(parts[2]);
  } else if (value.is_object()) {
    static const std::vector<std::string> k_keys = {"shape", "dtype", "init",
                                                    "low",   "high",  "requires_grad"};
    for (const auto& item : value.items()) {
      if (std::find(k_keys.begin(), k_keys.end(), item.key()) == k_keys.end()) {
        throw ConfigError(where + ": unknown tensor key '" + item.key() +
                          "' (valid: " + core::join(k_keys, ", ") + ")");
      }
    }
    if (!value.contains("shape"))
      throw ConfigError(where + ": tensor object needs a 'shape'");
    spec.shape = parse_dims_json(value["shape"], where);
    if (value.contains("dtype") && !value["dtype"].is_null()) {
      if (!value["dtype"].is_string())
        throw ConfigError(where + ": 'dtype' must be a string");
      try {
        spec.dtype = core::canonical_dtype(value["dtype"].get<std::string>());
      } catch (const UsageError& e) {
        throw ConfigError(where + ": " + e.what());
      }
    }
    if (value.contains("init") && !value["init"].is_null()) {
      if (!value["init"].is_string())
        throw ConfigError(where + ": 'init' must be a string");
      spec.init = value["init"].get<std::string>();
    }
    for (const char* key : {"low", "high"}) {
      if (value.contains(key) && !value[key].is_null()) {
        if (!value[key].is_number())
          throw ConfigError(where + ": '" + key + "' must be a number");
        (std::string(key) == "low" ? spec.low : spec.high) = value[key].get<double>();
      }
    }
    if (value.contains("requires_grad")) {
      if (!value["requires_grad"].is_boolean()) {
        throw ConfigError(where + ": 'requires_grad' must be true or false");
      }
      spec.requires_grad = value["requires_grad"].get<bool>();
    }
  } else {
    throw ConfigError(where +
                      ": expected a tensor shape like [32,3,224,224] or 32x3x224x224, found " +
                      value.dump());
  }
  if (!spec.init.empty()) {
    const auto& names = init_names();
    if (std::find(names.begin(), names.end(), spec.init) == names.end()) {
      throw ConfigError(where + ": unknown init '" + spec.init +
                        "' (valid: " + core::join(names, ", ") + ")");
    }
  }
  if (spec.low && spec.high && *spec.low >= *spec.high) {
    throw ConfigError(where + ": 'low' must be below 'high'");
  }
  return spec;
}

Json TensorSpec::to_json() const {
  Json out = Json::object();
  out["shape"] = shape;
  if (!dtype.empty())
    out["dtype"] = dtype;
  if (!init.empty())
    out["init"] = init;
  if (low)
    out["low"] = *low;
  if (high)
    out["high"] = *high;
  if (!requires_grad)
    out["requires_grad"] = false;
  return out;
}

std::string TensorSpec::short_str() const {
  std::string out;
  if (shape.empty()) {
    out = "scalar";
  } else {
    std::vector<std::string> dims;
    for (auto d : shape)
      dims.push_back(std::to_string(d));
    out = core::join(dims, "x");
  }
  if (!dtype.empty())
    out += ":" + dtype;
  if (!init.empty())
    out += ":" + init;
  return out;
}

std::int64_t TensorSpec::numel() const {
  std::int64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

InputSpec InputSpec::parse(const std::string& text) {
  const auto parts = core::split(text, ':');
  if (parts.empty() || parts.size() > 2) {
    throw UsageError("bad --input '" + text +
                     "', expected DIMS[:DTYPE] such as 1x3x224x224:float32");
  }
  InputSpec spec;
  try {
    spec.shape = TensorSpec::parse(Json(parts[0]), "--input").shape;
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

} // namespace opbench::catalog
