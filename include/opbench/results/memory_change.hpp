#pragma once
// Did a case's memory change between two runs? Memory needs no statistics: the allocation
// reporter (measure/memory_probe.hpp) counts a call's bytes exactly, and on one LibTorch build,
// device, dtype and inputs a call allocates the same bytes every time (no difference in peak,
// total or allocations over 45 A/A pairs of 372 CPU cases: docs/nightly-log.md, "Memory
// verdicts"). So a change is a change: `more memory` when the call's peak or total bytes (or a
// training step's bytes kept for backward) grew by more than the tolerance, `less memory` when one
// shrank and none grew, `same` within it, and
// `unknown` (saying why) when either side was not probed or the runs are not comparable (another
// LibTorch, another input seed). Used by `compare` (two files) and the nightly gate (tonight
// against the newest comparable night of the history). docs/nightly.md#memory.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "opbench/core/json.hpp"
#include "opbench/core/junit.hpp"
#include "opbench/core/names.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::results {

enum class MemoryVerdict { same, more, less, unknown };

// One case's memory in two runs. Bytes are -1 where a side was not probed.
struct MemoryChange {
  MemoryVerdict verdict = MemoryVerdict::unknown;
  std::string reason; // why unknown; for more / less, what moved ("peak x1.10 (+400.00 KiB)")
  std::int64_t base_peak = -1;
  std::int64_t new_peak = -1;
  std::int64_t base_total = -1;
  std::int64_t new_total = -1;
  std::int64_t tolerance = 0; // [bytes] a difference this small either way is `same`
  // new_peak / base_peak; NaN where a side is missing or the base peak is 0.
  double peak_ratio() const;
};

// The bytes either way that are still `same` on `device`. CPU: 0. LibTorch's CPU allocator
// reports the bytes asked for, which are exact. CUDA: the caching allocator reports its blocks:
// every size is rounded up to 512 bytes, and a cached block up to 1 MiB larger than asked may be
// handed out whole, depending on what earlier cases left in the cache: 512 bytes per allocation
// of the larger side plus 1 MiB.
std::int64_t memory_tolerance(const std::string& device, std::int64_t allocations);

// Why a case's memory in two runs cannot be compared ("" when it can): another LibTorch version or
// build (the runs' context.libtorch_version, libtorch_cuda_compiled), or inputs made from another
// seed (the case's Case::seed).
std::string memory_setup_difference(const Json& base_context, std::uint64_t base_seed,
                                    const Json& new_context, std::uint64_t new_seed);

// The verdict for one case measured on `device`: `setup_difference` from
// memory_setup_difference (non-empty: unknown, saying so).
MemoryChange judge_memory(const std::optional<MemoryStats>& base,
                          const std::optional<MemoryStats>& now, const std::string& device,
                          const std::string& setup_difference);

// The verdict as a Markdown table cell: "**more memory** (peak x1.10 (+400.00 KiB))",
// "less memory (...)", "same (1.00 MiB)" (the new peak) or "unknown". compare's and the gate's
// reports.
std::string markdown_cell(const MemoryChange& change);

// Fails `test` (JUnit) for more memory when `change` says so, beside any failure it already has:
// type "more memory", message "more memory<against>: <reason> (exact; tolerance N)"; `against`
// names the baseline (" than the last night that probed it"; "" for the other file or side).
// compare's, the gate's and ab's JUnit.
void add_memory_failure(core::JunitCase& test, const MemoryChange& change,
                        const std::string& against = "");

// {"verdict", "reason", "base_peak_bytes", "new_peak_bytes", "base_total_bytes",
// "new_total_bytes", "tolerance_bytes"}; absent bytes are null.
Json to_json(const MemoryChange& change);

} // namespace opbench::results

namespace opbench::core {

template <> struct NameTable<results::MemoryVerdict> {
  static constexpr std::pair<results::MemoryVerdict, std::string_view> k_names[] = {
      {results::MemoryVerdict::same, "same"},
      {results::MemoryVerdict::more, "more memory"},
      {results::MemoryVerdict::less, "less memory"},
      {results::MemoryVerdict::unknown, "unknown"}};
};

} // namespace opbench::core
