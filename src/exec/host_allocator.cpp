#include "opbench/exec/host_allocator.hpp"

#include <malloc.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "opbench/core/error.hpp"

namespace opbench::exec {
namespace {

// The kernel's THP mode, the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled
// ("always", "madvise" or "never"); empty when it cannot be read.
std::string kernel_thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return "";
  const auto open = line.find('['), close = line.find(']');
  return open != std::string::npos && close > open ? line.substr(open + 1, close - open - 1) : "";
}

std::string huge_pages_text() {
  const char* env = std::getenv("THP_MEM_ALLOC_ENABLE");
  const std::string kernel = kernel_thp_mode();
  const std::string setting = env == nullptr ? "unset" : env;
  return "; LibTorch CPU blocks of 2 MiB or more on transparent huge pages: " +
         std::string(env != nullptr && std::string(env) == "1" && kernel != "never" ? "yes" : "no") +
         " (THP_MEM_ALLOC_ENABLE=" + setting + ", kernel THP " + (kernel.empty() ? "unknown" : kernel) + ")";
}

}  // namespace

std::string configure_host_allocator(const std::string& mode) {
  if (mode == "system") return "glibc malloc, default thresholds (dynamic mmap threshold)" + huge_pages_text();
  if (mode != "tuned") throw UsageError("unknown host allocator mode '" + mode + "' (valid: tuned, system)");
  // LibTorch's CPU allocator (c10 alloc_cpu) aligns blocks of 2 MiB or more to 2 MiB and advises
  // the kernel to back them with transparent huge pages when THP_MEM_ALLOC_ENABLE=1. It reads the
  // variable once, at its first allocation, which comes after this. A user's own setting stays.
  setenv("THP_MEM_ALLOC_ENABLE", "1", /*overwrite=*/0);
  // 32 MiB is glibc's largest mmap threshold on 64-bit (HEAP_MAX_SIZE / 2); blocks above it still
  // come from mmap and are faulted in page by page on every call: with 4 KiB pages that doubled
  // binary_cross_entropy_with_logits on 120000x80 (38 MB a tensor; 74 ms against 32 ms), with huge
  // pages it is 512 times fewer faults.
  constexpr int k_mmap_threshold = 32 * 1024 * 1024;
  const bool ok = mallopt(M_MMAP_THRESHOLD, k_mmap_threshold) == 1 &&
                  mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1 && mallopt(M_TOP_PAD, 64 << 20) == 1;
  if (!ok) return "glibc malloc, tuning refused by mallopt (default thresholds)" + huge_pages_text();
  return "glibc malloc, M_MMAP_THRESHOLD=33554432 M_TRIM_THRESHOLD=1073741824 M_TOP_PAD=67108864" + huge_pages_text();
}

}  // namespace opbench::exec
