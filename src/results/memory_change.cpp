#include "opbench/results/memory_change.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"

namespace opbench::results {
namespace {

constexpr std::int64_t k_cuda_block = 512;           // the caching allocator's rounding
constexpr std::int64_t k_cuda_whole_block = 1 << 20; // a cached block handed out unsplit

std::string context_value(const Json& context, const char* key) {
  if (!context.is_object() || !context.contains(key) || context[key].is_null())
    return "not recorded";
  const Json& v = context[key];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// "peak 4.00 MiB -> 4.06 MiB (+64.00 KiB)"
std::string moved(const char* what, std::int64_t before, std::int64_t after) {
  const std::int64_t delta = after - before;
  return std::string(what) + " " + core::format_bytes(before) + " -> " + core::format_bytes(after) +
         " (" + (delta >= 0 ? "+" : "-") + core::format_bytes(delta >= 0 ? delta : -delta) + ")";
}

} // namespace

double MemoryChange::peak_ratio() const {
  if (base_peak <= 0 || new_peak < 0)
    return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(new_peak) / static_cast<double>(base_peak);
}

std::int64_t memory_tolerance(const std::string& device, std::int64_t allocations) {
  if (device == "cpu")
    return 0;
  return k_cuda_block * std::max<std::int64_t>(allocations, 0) + k_cuda_whole_block;
}

std::string memory_setup_difference(const Json& base_context, std::uint64_t base_seed,
                                    const Json& new_context, std::uint64_t new_seed) {
  std::vector<std::string> out;
  for (const char* key : {"libtorch_version", "libtorch_cuda_compiled"}) {
    const std::string a = context_value(base_context, key), b = context_value(new_context, key);
    if (a != b)
      out.push_back(std::string(key) + " " + a + " vs " + b);
  }
  if (base_seed != new_seed)
    out.push_back("input seed " + std::to_string(base_seed) + " vs " + std::to_string(new_seed));
  return core::join(out, "; ");
}

MemoryChange judge_memory(const std::optional<MemoryStats>& base,
                          const std::optional<MemoryStats>& now, const std::string& device,
                          const std::string& setup_difference) {
  MemoryChange out;
  if (base) {
    out.base_peak = base->peak_bytes;
    out.base_total = base->total_bytes;
  }
  if (now) {
    out.new_peak = now->peak_bytes;
    out.new_total = now->total_bytes;
  }
  if (!base || !now) {
    out.reason = std::string("no memory probe in ") + (!base && !now ? "either run"
                                                       : !base       ? "BASE"
                                                                     : "NEW");
    return out;
  }
  if (!setup_difference.empty()) {
    out.reason =
        "memory is compared on one LibTorch and one input seed only (" + setup_difference + ")";
    return out;
  }
  out.tolerance = memory_tolerance(device, std::max(base->allocations, now->allocations));
  std::vector<std::string> grew, shrank;
  auto judge = [&](const char* what, std::int64_t before, std::int64_t after) {
    if (after - before > out.tolerance)
      grew.push_back(moved(what, before, after));
    else if (before - after > out.tolerance)
      shrank.push_back(moved(what, before, after));
  };
  judge("peak", base->peak_bytes, now->peak_bytes);
  judge("total", base->total_bytes, now->total_bytes);
  if (base->kept_for_backward_bytes && now->kept_for_backward_bytes)
    judge("kept for backward", *base->kept_for_backward_bytes, *now->kept_for_backward_bytes);
  if (!grew.empty()) {
    out.verdict = MemoryVerdict::more;
    grew.insert(grew.end(), shrank.begin(), shrank.end());
    out.reason = core::join(grew, ", ");
  } else if (!shrank.empty()) {
    out.verdict = MemoryVerdict::less;
    out.reason = core::join(shrank, ", ");
  } else {
    out.verdict = MemoryVerdict::same;
  }
  return out;
}

void add_memory_failure(core::JunitCase& test, const MemoryChange& change,
                        const std::string& against) {
  if (change.verdict != MemoryVerdict::more)
    return;
  const std::string memory = "more memory" + against + ": " + change.reason +
                             " (exact; tolerance " + core::format_bytes(change.tolerance) + ")";
  test.outcome = core::JunitCase::Outcome::failed;
  test.type = test.type.empty() ? "more memory" : test.type + ", more memory";
  test.message = test.message.empty() ? memory : test.message + "; " + memory;
}

std::string markdown_cell(const MemoryChange& change) {
  switch (change.verdict) {
  case MemoryVerdict::more:
    return "**more memory** (" + change.reason + ")";
  case MemoryVerdict::less:
    return "less memory (" + change.reason + ")";
  case MemoryVerdict::same:
    return change.new_peak >= 0 ? "same (" + core::format_bytes(change.new_peak) + ")" : "same";
  case MemoryVerdict::unknown:
    break;
  }
  return "unknown";
}

Json to_json(const MemoryChange& change) {
  auto bytes = [](std::int64_t v) { return v >= 0 ? Json(v) : Json(nullptr); };
  return {
      {"verdict", core::name_of(change.verdict)},     {"reason", change.reason},
      {"base_peak_bytes", bytes(change.base_peak)},   {"new_peak_bytes", bytes(change.new_peak)},
      {"base_total_bytes", bytes(change.base_total)}, {"new_total_bytes", bytes(change.new_total)},
      {"tolerance_bytes", change.tolerance}};
}

} // namespace opbench::results
