#include "opbench/machine/host_allocator.hpp"

#include <malloc.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "opbench/core/error.hpp"

namespace opbench::machine {
namespace {

// The kernel's THP mode, the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled
// ("always", "madvise" or "never"); empty when it cannot be read.
std::string kernel_thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line))
    return "";
  const auto open = line.find('['), close = line.find(']');
  return open != std::string::npos && close > open ? line.substr(open + 1, close - open - 1) : "";
}

std::string huge_pages_text() {
  const char* env = std::getenv("THP_MEM_ALLOC_ENABLE");
  const std::string kernel = kernel_thp_mode();
  const std::string setting = env == nullptr ? "unset" : env;
  return "; LibTorch CPU blocks of 2 MiB or more on transparent huge pages: " +
         std::string(env != nullptr && std::string(env) == "1" && kernel != "never" ? "yes"
                                                                                    : "no") +
         " (THP_MEM_ALLOC_ENABLE=" + setting + ", kernel THP " +
         (kernel.empty() ? "unknown" : kernel) + ")";
}

// Whether the environment sets glibc's mmap_max tunable
// (GLIBC_TUNABLES=...:glibc.malloc.mmap_max=N).
bool user_sets_mmap_max() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return tunables != nullptr &&
         std::string(tunables).find("glibc.malloc.mmap_max=") != std::string::npos;
}

} // namespace

std::string configure_host_allocator(const std::string& mode) {
  if (mode == "system")
    return "glibc malloc, default thresholds (dynamic mmap threshold)" + huge_pages_text();
  if (mode != "tuned")
    throw UsageError("unknown host allocator mode '" + mode + "' (valid: tuned, system)");
  // LibTorch's CPU allocator (c10 alloc_cpu) advises the kernel to back blocks of 2 MiB or more
  // with transparent huge pages when THP_MEM_ALLOC_ENABLE=1 (it aligns them to the page size, not
  // to 2 MiB: only the whole 2 MiB stretches inside a block can be huge). It reads the variable
  // once, at its first allocation, which comes after this. A user's own setting stays.
  setenv("THP_MEM_ALLOC_ENABLE", "1", /*overwrite=*/0);
  // Freed blocks stay in the heap (no trimming) and every block comes from it: glibc serves a block
  // over M_MMAP_THRESHOLD with its own mmap, faulted in page by page on every call and unmapped on
  // free, and 32 MiB is the largest threshold it takes on 64-bit, so M_MMAP_MAX=0 turns that path
  // off instead. A 38 MB output (binary_cross_entropy_with_logits on 120000x80) cost 21-28 ms a
  // call that way against 13-14 ms from the heap, and how fast the kernel found huge pages for
  // the mapping changed from process to process (x1.30 between four runs, x1.10 from the heap).
  // Where the heap cannot grow, glibc still falls back to mmap. A user's own
  // GLIBC_TUNABLES=glibc.malloc.mmap_max=N stays (bench/host_allocator.sh compares the two).
  constexpr int k_mmap_threshold = 32 * 1024 * 1024;
  const bool users_mmap_max = user_sets_mmap_max();
  const bool ok = mallopt(M_MMAP_THRESHOLD, k_mmap_threshold) == 1 &&
                  (users_mmap_max || mallopt(M_MMAP_MAX, 0) == 1) &&
                  mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1 && mallopt(M_TOP_PAD, 64 << 20) == 1;
  if (!ok)
    return "glibc malloc, tuning refused by mallopt (default thresholds)" + huge_pages_text();
  return "glibc malloc, " +
         std::string(users_mmap_max ? "M_MMAP_MAX from GLIBC_TUNABLES" : "M_MMAP_MAX=0") +
         " M_MMAP_THRESHOLD=33554432 M_TRIM_THRESHOLD=1073741824 M_TOP_PAD=67108864" +
         huge_pages_text();
}

} // namespace opbench::machine
