#include "opbench/config/named_dims.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>

#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::config {
namespace {

bool looks_like_name(const std::string& text) {
  return !text.empty() && std::isupper(static_cast<unsigned char>(text.front()));
}

// Applies `on_name` to each name-like token of `text` when it is a shape string (every 'x'-joined
// size before a ':' a number or a name-like token) and gives the string with the sizes it
// returned; `text` unchanged when it is no such string.
std::string each_size(const std::string& text,
                      const std::function<std::string(const std::string&)>& on_name) {
  const auto colon = text.find(':');
  const std::string sizes = text.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : text.substr(colon);
  std::vector<std::string> parts = core::split(sizes, 'x');
  bool any_name = false;
  for (const auto& part : parts) {
    if (looks_like_name(part)) {
      any_name = true;
    } else if (part.empty() || !std::all_of(part.begin(), part.end(),
                                            [](unsigned char c) { return std::isdigit(c); })) {
      return text; // not a shape: "mean", "tanh", "channels_last"
    }
  }
  if (!any_name)
    return text;
  for (auto& part : parts) {
    if (looks_like_name(part))
      part = on_name(part);
  }
  return core::join(parts, "x") + rest;
}

// `value` with `on_name` applied to every name it holds (see with_dims); a string that is one
// name becomes `as_number(name)`.
Json walk(const Json& value, const std::function<std::string(const std::string&)>& on_name,
          const std::function<Json(const std::string&)>& as_number) {
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (is_dim_name(text))
      return as_number(text);
    return each_size(text, on_name);
  }
  if (value.is_array()) {
    Json out = Json::array();
    for (const auto& item : value)
      out.push_back(walk(item, on_name, as_number));
    return out;
  }
  if (value.is_object()) {
    Json out = Json::object();
    for (const auto& item : value.items())
      out[item.key()] = walk(item.value(), on_name, as_number);
    return out;
  }
  return value;
}

} // namespace

bool is_dim_name(const std::string& text) {
  return looks_like_name(text) && std::all_of(text.begin(), text.end(), [](unsigned char c) {
           return (std::isalnum(c) || c == '_') && c != 'x';
         });
}

Json with_dims(const Json& args, const std::map<std::string, std::int64_t>& sizes,
               const std::string& where) {
  auto size_of = [&](const std::string& name) -> std::int64_t {
    const auto it = sizes.find(name);
    if (it == sizes.end()) {
      std::vector<std::string> declared;
      for (const auto& item : sizes)
        declared.push_back(item.first);
      throw ConfigError(where + ": dimension '" + name + "' has no value (" +
                        (declared.empty() ? std::string("the case declares no \"dims\"")
                                          : "declared: " + core::join(declared, ", ")) +
                        ")");
    }
    return it->second;
  };
  return walk(
      args, [&](const std::string& name) { return std::to_string(size_of(name)); },
      [&](const std::string& name) { return Json(size_of(name)); });
}

std::vector<std::string> dims_used(const Json& args) {
  std::set<std::string> names;
  walk(
      args,
      [&](const std::string& name) {
        names.insert(name);
        return name;
      },
      [&](const std::string& name) {
        names.insert(name);
        return Json(name);
      });
  return {names.begin(), names.end()};
}

} // namespace opbench::config
