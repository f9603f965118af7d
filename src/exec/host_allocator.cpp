#include "opbench/exec/host_allocator.hpp"

#include <malloc.h>

#include "opbench/core/error.hpp"

namespace opbench::exec {

std::string configure_host_allocator(const std::string& mode) {
  if (mode == "system") return "glibc malloc, default thresholds (dynamic mmap threshold)";
  if (mode != "tuned") throw UsageError("unknown host allocator mode '" + mode + "' (valid: tuned, system)");
  // 32 MiB is glibc's largest mmap threshold on 64-bit (HEAP_MAX_SIZE / 2); blocks above it
  // still come from mmap, but those calls are long enough for a page fault per page to be noise.
  constexpr int k_mmap_threshold = 32 * 1024 * 1024;
  const bool ok = mallopt(M_MMAP_THRESHOLD, k_mmap_threshold) == 1 &&
                  mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1 && mallopt(M_TOP_PAD, 64 << 20) == 1;
  if (!ok) return "glibc malloc, tuning refused by mallopt (default thresholds)";
  return "glibc malloc, M_MMAP_THRESHOLD=33554432 M_TRIM_THRESHOLD=1073741824 M_TOP_PAD=67108864";
}

}  // namespace opbench::exec
