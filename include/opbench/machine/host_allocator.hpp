#pragma once
// The host allocator must not decide the result. glibc's malloc serves large blocks with mmap
// and trims the heap top on free; a loop that frees and re-allocates a few MiB per call then pays
// page faults on every call, and its time depends on whether the previous output is still alive.
// Kept in its heap instead (M_MMAP_MAX 0), glibc 2.36 still cannot hand a freed large block back
// to LibTorch's aligned requests once small blocks sit beside it, so the heap grows and the next
// call writes fresh pages. So the processes that measure run on jemalloc, which keeps freed blocks
// by size class, the allocator PyTorch's own CPU launcher preloads (torch.backends.xeon.run_cpu).
// docs/measuring.md, "Host allocator", says what each mode sets and what it was measured to do.

#include <string>

namespace opbench::machine {

// Modes:
// - "tuned": the processes that measure run on jemalloc: the supervising process hands it on in
//   the environment it starts them with (LD_PRELOAD, MALLOC_CONF = k_jemalloc_conf: freed memory
//   kept, transparent huge pages, no background thread; THP_MEM_ALLOC_ENABLE=0, since jemalloc's
//   memory is advised already and LibTorch would add a madvise call per block of 2 MiB or more),
//   each variable only where the environment does not set it. A process that was to run on it and
//   does not (the preload failed) throws Error rather than measure on another allocator. Without
//   a jemalloc (jemalloc_path() empty) or with the user's own LD_PRELOAD: as "glibc".
// - "glibc": glibc's malloc with M_MMAP_MAX 0 (unless GLIBC_TUNABLES sets mmap_max),
//   M_TRIM_THRESHOLD 1 GiB, M_TOP_PAD 64 MiB, and THP_MEM_ALLOC_ENABLE=1 unless set.
// - "system": glibc's defaults, with its dynamic threshold; nothing set.
// Returns the description recorded in the results context: the allocator of the processes that
// measure. Throws UsageError for another mode.
std::string configure_host_allocator(const std::string& mode);

// MALLOC_CONF for the measuring processes when the environment sets none.
inline constexpr const char* k_jemalloc_conf =
    "dirty_decay_ms:-1,muzzy_decay_ms:-1,thp:always,metadata_thp:auto,background_thread:false";

// The jemalloc to preload: OPBENCH_JEMALLOC when set ("none": no jemalloc; a path that is no
// file: UsageError), else the first libjemalloc.so.2 of the usual library folders (Debian's
// libjemalloc2 puts it in /usr/lib/<multiarch>); "" when there is none.
std::string jemalloc_path();

// Whether jemalloc serves this process's malloc (its mallctl is linked in); its version string
// in `version` when given.
bool jemalloc_active(std::string* version = nullptr);

} // namespace opbench::machine
