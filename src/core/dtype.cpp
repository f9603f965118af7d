#include "opbench/core/dtype.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::core {

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> k_names = {"float32", "float16", "bfloat16",  "float64",
                                                   "int8",    "uint8",   "int16",     "int32",
                                                   "int64",   "bool",    "complex64", "complex128"};
  return k_names;
}

std::string canonical_dtype(const std::string& name) {
  static const std::map<std::string, std::string> k_aliases = {
      {"float", "float32"},     {"fp32", "float32"}, {"f32", "float32"},   {"half", "float16"},
      {"fp16", "float16"},      {"f16", "float16"},  {"bf16", "bfloat16"}, {"double", "float64"},
      {"fp64", "float64"},      {"f64", "float64"},  {"long", "int64"},    {"int", "int32"},
      {"short", "int16"},       {"char", "int8"},    {"byte", "uint8"},    {"cfloat", "complex64"},
      {"cdouble", "complex128"}};
  std::string key = trim(name);
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (starts_with(key, "torch."))
    key = key.substr(6);
  const auto& names = dtype_names();
  if (std::find(names.begin(), names.end(), key) != names.end())
    return key;
  if (auto it = k_aliases.find(key); it != k_aliases.end())
    return it->second;
  throw UsageError("unknown dtype '" + name + "' (valid: " + join(names, ", ") + ")");
}

bool is_floating_dtype(const std::string& canonical) {
  return canonical == "float32" || canonical == "float16" || canonical == "bfloat16" ||
         canonical == "float64";
}

std::string DeviceSpec::str() const {
  return type == "cpu" ? std::string("cpu") : type + ":" + std::to_string(index);
}

DeviceSpec parse_device(const std::string& text) {
  const std::string value = trim(text);
  auto parse_index = [&](const std::string& digits) {
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(),
                                       [](unsigned char c) { return std::isdigit(c) != 0; })) {
      throw UsageError("unknown device '" + text + "' (valid: cpu, gpuN, cuda:N)");
    }
    if (digits.size() > 5 || std::stoi(digits) > 65535)
      throw UsageError("device '" + text + "': no such device index (valid: 0 to 65535)");
    return std::stoi(digits);
  };
  if (value == "cpu")
    return {"cpu", 0};
  if (value == "cuda" || value == "gpu")
    return {"cuda", 0};
  if (starts_with(value, "cuda:"))
    return {"cuda", parse_index(value.substr(5))};
  if (starts_with(value, "gpu"))
    return {"cuda", parse_index(value.substr(3))};
  throw UsageError("unknown device '" + text + "' (valid: cpu, gpuN, cuda:N)");
}

} // namespace opbench::core
