#pragma once
// The one way a command picks an output format: a table of named writers of one kind of result
// (a comparison, the gate's verdicts, a result file's views), looked up by the name the user gave.
// Every format list a command shows (`--help`, errors) is its table's names.

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::core {

template <typename T> struct Format {
  std::string name;
  std::function<void(const T& value, std::ostream& out)> write;
};

// The names of `formats`, in their order.
template <typename T> std::vector<std::string> format_names(const std::vector<Format<T>>& formats) {
  std::vector<std::string> names;
  for (const auto& f : formats)
    names.push_back(f.name);
  return names;
}

// Writes `value` to `out` as the format named `name`; throws UsageError "unknown format 'x'
// (valid: a, b, c)" when `formats` has none so named.
template <typename T>
void write_as(const std::vector<Format<T>>& formats, std::string_view name, const T& value,
              std::ostream& out) {
  for (const auto& f : formats) {
    if (f.name == name) {
      f.write(value, out);
      return;
    }
  }
  throw UsageError("unknown format '" + std::string(name) +
                   "' (valid: " + join(format_names(formats), ", ") + ")");
}

} // namespace opbench::core
