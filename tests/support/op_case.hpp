#pragma once
// An operator case as a config row gives it, for the engine tests: `op` bound to `args` (the
// config's argument form) on the CPU, one thread, seed 7, origin "test".

#include <string>

#include "opbench/catalog/binder.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/names.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/results/case.hpp"

namespace opbench::testing {

inline results::Case make_op_case(const std::string& op, const Json& args,
                                  const std::string& direction = "forward",
                                  const std::string& dtype = "float32") {
  results::Case c = plan::make_case(
      op, catalog::bind_case(op, args, "test"), dtype, "cpu", 1,
      core::parse_name_or_throw<results::Direction>(direction, "direction", "test"), 7);
  c.origin = "test";
  return c;
}

} // namespace opbench::testing
