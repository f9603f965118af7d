#include "opbench/results/setup_difference.hpp"

#include <utility>
#include <vector>

#include "opbench/core/strings.hpp"

namespace opbench::results {

std::string setup_difference(const Json& base, const Json& candidate, const std::string& what) {
  static const std::vector<std::pair<std::string, std::string>> k_keys = {
      {"libtorch_version", "LibTorch"},
      {"libtorch_build", "LibTorch build"},
      {"cpu_model", "CPU"},
      {"logical_cores", "logical cores"},
      {"threads_default", "LibTorch's default threads"},
      {"host_allocator", "host allocator"},
      {"processes", "processes a run"},
      {"repetitions", "repetitions"},
      {"isolate", "isolate"}};
  if (!base.is_object() || !candidate.is_object())
    return "";
  std::vector<std::string> differing;
  for (const auto& [key, name] : k_keys) {
    if (!base.contains(key) || !candidate.contains(key) || base[key] == candidate[key])
      continue;
    const std::string a = base[key].is_string() ? base[key].get<std::string>() : base[key].dump();
    const std::string b =
        candidate[key].is_string() ? candidate[key].get<std::string>() : candidate[key].dump();
    // Long texts (the build configuration) are named, not quoted.
    const bool long_text = a.size() > 400 || b.size() > 400 || a.find('\n') != std::string::npos ||
                           b.find('\n') != std::string::npos;
    differing.push_back(long_text ? name : name + ": " + a + " in BASE, " + b + " in NEW");
  }
  if (differing.empty())
    return "";
  return "the two " + what + "' setups differ (" + core::join(differing, "; ") +
         "): a ratio is the setup's change as much as the code's";
}

} // namespace opbench::results
