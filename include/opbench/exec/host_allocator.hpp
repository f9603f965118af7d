#pragma once
// The host allocator must not decide the result. glibc's malloc serves large blocks with mmap
// and trims the heap top on free; a loop that frees and re-allocates a few MiB per call then pays
// page faults on every call, and its time depends on whether the previous output is still alive.
// opbench raises glibc's mmap and trim thresholds at start-up so freed memory stays in the heap,
// and has LibTorch put blocks of 2 MiB or more on transparent huge pages (THP_MEM_ALLOC_ENABLE),
// so that blocks past the mmap threshold cost 512 times fewer page faults and fewer TLB misses,
// whichever physical pages a repetition happens to get.

#include <string>

namespace opbench::exec {

// Modes: "tuned" (raise M_MMAP_THRESHOLD to 32 MiB, the most glibc allows, disable trimming, and
// set THP_MEM_ALLOC_ENABLE=1 unless the environment sets it) or "system" (glibc's defaults, with its dynamic threshold). Returns the description recorded in
// the results context. Throws UsageError for another mode.
std::string configure_host_allocator(const std::string& mode);

}  // namespace opbench::exec
