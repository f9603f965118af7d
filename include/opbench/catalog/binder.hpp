#pragma once
// Binds a config row to an ATen operator schema, through LibTorch's dispatcher.
// This header does not include LibTorch: callers get plain data back.

#include <string>
#include <vector>

#include "opbench/core/json.hpp"

namespace opbench::catalog {

// A config row bound to one overload of an operator.
struct BoundOp {
  std::string name;     // "aten::add"
  std::string overload; // "Tensor"; "" for the default overload
  std::string schema; // "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
  Json given;         // the given arguments, normalised, in schema order (tensors as objects)
  Json arguments;     // every schema argument in schema order, defaults filled in

  // "aten::add.Tensor" (or "aten::relu" for a default overload).
  std::string qualified() const;
};

// Resolves `op` ("conv2d", "add.Tensor", "aten::addmm") and binds `args` (name -> config value)
// to its schema. Without an overload, the first overload that binds wins: the default one, then
// the others by name, never an out= variant. Throws ConfigError prefixed with `where` naming the
// wrong argument and the valid ones.
BoundOp bind_case(const std::string& op, const Json& args, const std::string& where);

// Every operator the dispatcher knows, as "aten::add.Tensor", sorted.
std::vector<std::string> registered_operators();

// Schemas of every overload of `op` (bare name or with overload), for `show` and errors.
std::vector<std::string> schemas_of(const std::string& op);

} // namespace opbench::catalog
