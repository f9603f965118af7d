#pragma once
// A sample's parameter: a keyword argument of the original function (a loss's beta, an IoU's
// mode), typed, with the original's default and the values it may take. The catalogue's cases
// take the default; `--axis NAME=VALUES` sweeps it as nvbench sweeps a float64 or string axis.
// A case gives a parameter by name beside its sizes ({"sizes": [3000, 4], "beta": 0.5}) only
// when it is not the default, so a catalogue case's id is the same with or without parameters.

#include <cstdint>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"

namespace opbench::catalog {

struct SampleParameter {
  std::string name;                 // "beta"; never "sizes"
  std::string type;                 // "int64", "float64" or "string"
  Json default_value;               // the original's default
  double min = 0.0, max = 0.0;      // int64 and float64: the closed range of its values
  std::vector<std::string> choices; // string: the values it may take, the default first

  static SampleParameter int64(std::string name, std::int64_t default_value, std::int64_t min,
                               std::int64_t max);
  static SampleParameter float64(std::string name, double default_value, double min, double max);
  static SampleParameter string(std::string name, std::vector<std::string> choices);

  // The value written `text` ("0.5", "iof"); throws std::invalid_argument saying what it may take.
  Json value_of(const std::string& text) const;
  // True when `value` is one this parameter may take (right type, in range or a choice).
  bool accepts(const Json& value) const;
  // What it may take: "float64 in [1e-06, 100]", "one of iou, iof, giou".
  std::string domain() const;
};

// The parameter called `name`, nullptr when none.
const SampleParameter* find_parameter(const std::vector<SampleParameter>& parameters,
                                      const std::string& name);

// A case's given arguments with parameter `name` (one of `parameters`) at `value`: given, or left
// out when it is the default. The parameters follow the sizes in their declared order, so a case
// has one id whatever order --axis named them in.
Json with_parameter(const Json& given, const std::vector<SampleParameter>& parameters,
                    const std::string& name, const Json& value);

} // namespace opbench::catalog
