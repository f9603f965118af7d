#include "opbench/catalog/sample_parameter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "opbench/core/strings.hpp"

namespace opbench::catalog {

SampleParameter SampleParameter::int64(std::string name, std::int64_t default_value,
                                       std::int64_t min, std::int64_t max) {
  SampleParameter p;
  p.name = std::move(name);
  p.type = "int64";
  p.default_value = default_value;
  p.min = static_cast<double>(min);
  p.max = static_cast<double>(max);
  return p;
}

SampleParameter SampleParameter::float64(std::string name, double default_value, double min,
                                         double max) {
  SampleParameter p;
  p.name = std::move(name);
  p.type = "float64";
  p.default_value = default_value;
  p.min = min;
  p.max = max;
  return p;
}

SampleParameter SampleParameter::string(std::string name, std::vector<std::string> choices) {
  SampleParameter p;
  p.name = std::move(name);
  p.type = "string";
  p.default_value = choices.empty() ? Json() : Json(choices.front());
  p.choices = std::move(choices);
  return p;
}

bool SampleParameter::accepts(const Json& value) const {
  if (type == "string") {
    return value.is_string() &&
           std::find(choices.begin(), choices.end(), value.get<std::string>()) != choices.end();
  }
  if (type == "int64" && !value.is_number_integer())
    return false;
  if (type == "float64" && !value.is_number())
    return false;
  if (type != "int64" && type != "float64")
    return false;
  const double v = value.get<double>();
  return std::isfinite(v) && v >= min && v <= max;
}

std::string SampleParameter::domain() const {
  if (type == "string")
    return "one of " + core::join(choices, ", ");
  if (type == "int64")
    return fmt::format("an integer in [{}, {}]", static_cast<std::int64_t>(min),
                       static_cast<std::int64_t>(max));
  return fmt::format("a number in [{}, {}]", min, max);
}

Json SampleParameter::value_of(const std::string& text) const {
  const std::string t = core::trim(text);
  Json value;
  if (type == "string") {
    value = t;
  } else {
    std::size_t used = 0;
    try {
      if (type == "int64") {
        value = static_cast<std::int64_t>(std::stoll(t, &used));
      } else {
        value = std::stod(t, &used);
      }
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != t.size())
      value = Json();
  }
  if (value.is_null() || !accepts(value)) {
    throw std::invalid_argument("'" + t + "' is not " + domain());
  }
  return value;
}

const SampleParameter* find_parameter(const std::vector<SampleParameter>& parameters,
                                      const std::string& name) {
  for (const auto& p : parameters) {
    if (p.name == name)
      return &p;
  }
  return nullptr;
}

Json with_parameter(const Json& given, const std::vector<SampleParameter>& parameters,
                    const std::string& name, const Json& value) {
  Json out = Json::object();
  for (const auto& item : given.items()) {
    if (find_parameter(parameters, item.key()) == nullptr)
      out[item.key()] = item.value();
  }
  for (const auto& p : parameters) {
    const Json& v = p.name == name ? value : given.value(p.name, p.default_value);
    const bool is_default = p.type == "string" ? v == p.default_value
                                               : v.get<double>() == p.default_value.get<double>();
    if (!is_default)
      out[p.name] = v;
  }
  return out;
}

} // namespace opbench::catalog
