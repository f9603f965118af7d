#pragma once
// One row of an operator config, as written: the operator, its given arguments and metadata.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"

namespace opbench::config {

// A config row before it is bound to an operator schema.
struct CaseSpec {
  std::string op;             // as written: "conv2d", "add.Tensor", "aten::addmm"
  Json args = Json::object(); // argument name -> value, only those given, in file order
  // Named dimensions (JSON "dims": name -> size, each used by `args`; config/named_dims.hpp):
  // `args` as written hold the names, and the case binds with these sizes put in.
  std::map<std::string, std::int64_t> dims;
  std::string shape_class;       // small | common | large | skewed | "" (none given)
  std::string source;            // where the shapes come from (model and layer), free text
  std::string category;          // e.g. "arithmetic", "nn.conv"; "" when not given
  std::vector<std::string> tags; // free tags
  int count = 1;                 // how often a model makes this call (opbench extract)
  std::string unsupported;       // why this recorded call cannot be run ("" when it can)
  // Operator libraries to load before binding (a JSON config's top-level "libraries", each
  // relative to the config's directory; catalog/libraries.hpp).
  std::vector<std::string> libraries;
  // A variant group's implementation (config/loader.hpp): the group, the group's case it computes
  // (its JSON pointer), and whether it is the baseline, the group's first implementation.
  std::string variant_group;
  std::string variant_point;
  bool variant_baseline = false;
  std::string file;    // config file the row comes from
  int row = 0;         // CSV: line of the record (1-based); JSON: 1-based case ordinal
  std::string pointer; // JSON: the case's JSON pointer; CSV: empty

  // `file:row` (CSV) or `file:/operators/0/cases/2` (JSON), the prefix of every message.
  std::string location() const;
};

} // namespace opbench::config
