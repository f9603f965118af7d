// libFuzzer harness: the command line's numeric options (run::parse_in_range over every range
// the CLI checks with, run::parse_seed). A value taken must be finite, in its range, whole where
// the range says so, and read back the same from its own text; anything else aborts (a finding).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "opbench/run/settings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  namespace l = opbench::run::limits;
  for (const auto& range :
       {l::warmup, l::runs, l::min_time, l::max_time, l::target_noise, l::block_time,
        l::repetitions, l::processes, l::placement, l::process_warmup, l::retries,
        l::slow_tolerance, l::bandwidth_tolerance, l::threads}) {
    const auto value = opbench::run::parse_in_range(text, range);
    if (!value)
      continue;
    if (!std::isfinite(*value) || *value < range.low || *value > range.high ||
        (range.integer && std::trunc(*value) != *value)) {
      std::abort();
    }
    std::ostringstream again;
    again.precision(17);
    again << *value;
    const auto back = opbench::run::parse_in_range(again.str(), range);
    if (!back || *back != *value)
      std::abort();
  }
  if (const auto seed = opbench::run::parse_seed(text)) {
    if (opbench::run::parse_seed(std::to_string(*seed)) != seed)
      std::abort();
  }
  return 0;
}
