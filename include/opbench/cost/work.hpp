#pragma once
// What one call of a case computes and moves, and the rates it ran at: a case result's `work`
// (results/result_set.hpp), filled by the cost rules (cost.hpp) and the roofline (roofline.hpp).

#include <cstdint>
#include <optional>
#include <string>

namespace opbench::cost {

// The bound of a case with bytes but no FLOP count: its % of peak is of the memory roof alone,
// which is all that can be said without knowing where it sits on the roofline.
inline constexpr const char* k_bytes_only_bound = "memory (bytes only)";
// The bound of a call that moves no data and computes nothing (a view, `empty`): no roof applies.
inline constexpr const char* k_no_data_bound = "no data moved";

// The work of one call and the rates it ran at (see cost/cost.hpp for the rules); absent
// values are unknown, never guessed.
struct WorkInfo {
  std::optional<double> flops;            // FLOPs of one call
  std::optional<double> bytes;            // bytes moved by one call, a lower bound
  std::string flops_rule;                 // the rule that gave `flops`
  std::optional<double> flops_per_second; // flops / median
  std::optional<double> bytes_per_second; // bytes / median
  std::optional<double> intensity;        // flops / bytes
  std::string bound;                      // "memory", "compute" or k_bytes_only_bound
  std::optional<double> percent_of_peak;  // of the bound's peak
  // Memory-bound cases: the level of the memory hierarchy whose calibrated bandwidth is the roof,
  // the smallest that holds the call's bytes ("L1d", "L2", "L3"; "DRAM" past them all or without
  // calibrated caches). Empty for compute-bound cases.
  std::string ceiling;
  // Why percent_of_peak is over 100, said for every such case; "" at or under 100.
  std::string over_peak;
  std::string peaks;                      // which calibrated peaks: "cpu/float32/t2"
  std::optional<std::int64_t> aten_calls; // top-level ATen calls of one invocation
};

} // namespace opbench::cost
