#pragma once
// The host allocator must not decide the result. glibc's malloc serves large blocks with mmap
// and trims the heap top on free; a loop that frees and re-allocates a few MiB per call then pays
// page faults on every call, and its time depends on whether the previous output is still alive.
// So at start-up opbench has every block come from the heap and stay there once freed, and has
// LibTorch ask for transparent huge pages for blocks of 2 MiB or more (THP_MEM_ALLOC_ENABLE; the
// whole 2 MiB stretches inside each block, which LibTorch aligns to the page size only).

#include <string>

namespace opbench::machine {

// Modes: "tuned" (M_MMAP_MAX 0 unless GLIBC_TUNABLES sets it, M_TRIM_THRESHOLD 1 GiB, M_TOP_PAD
// 64 MiB, and THP_MEM_ALLOC_ENABLE=1 unless the environment sets it) or "system" (glibc's
// defaults, with its dynamic threshold). Returns the description recorded in the results context.
// Throws UsageError for another mode.
std::string configure_host_allocator(const std::string& mode);

} // namespace opbench::machine
