#pragma once
// Enumerations with one name table each: the names are what files and the command line say; the
// program works with the enumerators, so a misspelt value does not compile. A vocabulary E
// specializes NameTable<E> with `static constexpr std::pair<E, std::string_view> k_names[]`.

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opbench/core/error.hpp"

namespace opbench::core {

template <typename E> struct NameTable; // specialized beside each enumeration

// The name of `value` (its table's entry).
template <typename E> std::string name_of(E value) {
  for (const auto& [e, name] : NameTable<E>::k_names) {
    if (e == value)
      return std::string(name);
  }
  return "?";
}

// Every name of E, in its table's order.
template <typename E> std::vector<std::string> names_of() {
  std::vector<std::string> out;
  for (const auto& entry : NameTable<E>::k_names)
    out.emplace_back(entry.second);
  return out;
}

// Name -> value, for a command-line option bound to E (CLI11's CheckedTransformer).
template <typename E> std::map<std::string, E> names_to() {
  std::map<std::string, E> out;
  for (const auto& [e, name] : NameTable<E>::k_names)
    out.emplace(std::string(name), e);
  return out;
}

// The value named `text`; false when no entry has that name.
template <typename E> bool parse_name(std::string_view text, E& value) {
  for (const auto& [e, name] : NameTable<E>::k_names) {
    if (name == text) {
      value = e;
      return true;
    }
  }
  return false;
}

// The value named `text`; throws ResultsError "`where`: unknown WHAT 'text' (valid: a, b, c)".
template <typename E>
E parse_name_or_throw(std::string_view text, const std::string& what, const std::string& where) {
  E value{};
  if (parse_name(text, value))
    return value;
  std::string valid;
  for (const auto& name : names_of<E>())
    valid += (valid.empty() ? "" : ", ") + name;
  throw ResultsError(where + ": unknown " + what + " '" + std::string(text) + "' (valid: " + valid +
                     ")");
}

} // namespace opbench::core
