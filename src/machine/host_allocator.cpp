#include "opbench/machine/host_allocator.hpp"

#include <dlfcn.h>
#include <malloc.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "opbench/core/error.hpp"

namespace opbench::machine {
namespace {

bool env_set(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0';
}

std::string env_or(const char* name, const std::string& otherwise) {
  return env_set(name) ? std::string(std::getenv(name)) : otherwise;
}

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

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

// jemalloc's pages: its MALLOC_CONF's thp:always advises all it maps, whatever LibTorch asks.
std::string jemalloc_pages_text() {
  const std::string kernel = kernel_thp_mode();
  return "; THP_MEM_ALLOC_ENABLE=" +
         std::string(env_set("THP_MEM_ALLOC_ENABLE") ? std::getenv("THP_MEM_ALLOC_ENABLE")
                                                     : "unset") +
         ", kernel THP " + (kernel.empty() ? "unknown" : kernel);
}

// Whether the environment sets glibc's mmap_max tunable
// (GLIBC_TUNABLES=...:glibc.malloc.mmap_max=N).
bool user_sets_mmap_max() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return tunables != nullptr &&
         std::string(tunables).find("glibc.malloc.mmap_max=") != std::string::npos;
}

// glibc's malloc kept in its heap: the "glibc" mode.
std::string configure_glibc() {
  // LibTorch's CPU allocator (c10 alloc_cpu) advises the kernel to back blocks of 2 MiB or more
  // with transparent huge pages when THP_MEM_ALLOC_ENABLE=1 (it aligns them to the page size, not
  // to 2 MiB: only the whole 2 MiB stretches inside a block can be huge). It reads the variable
  // once, at its first allocation, which comes after this. A user's own setting stays.
  setenv("THP_MEM_ALLOC_ENABLE", "1", /*overwrite=*/0);
  // Freed blocks stay in the heap (no trimming) and every block comes from it: glibc serves a block
  // over M_MMAP_THRESHOLD with its own mmap, faulted in page by page on every call and unmapped on
  // free, and 32 MiB is the largest threshold it takes on 64-bit, so M_MMAP_MAX=0 turns that path
  // off instead (docs/measuring.md, "Host allocator"). Where the heap cannot grow, glibc still
  // falls back to mmap. A user's own GLIBC_TUNABLES=glibc.malloc.mmap_max=N stays.
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

} // namespace

std::string jemalloc_path() {
  if (const char* chosen = std::getenv("OPBENCH_JEMALLOC"); chosen != nullptr) {
    const std::string path = chosen;
    if (path == "none")
      return "";
    if (!is_file(path))
      throw UsageError("OPBENCH_JEMALLOC=" + path + ": no such file (a libjemalloc.so, or none)");
    return path;
  }
  for (const char* dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
                          "/usr/lib", "/usr/local/lib"}) {
    const std::string path = std::string(dir) + "/libjemalloc.so.2";
    if (is_file(path))
      return path;
  }
  return "";
}

bool jemalloc_active(std::string* version) {
  using Mallctl = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
  const auto mallctl = reinterpret_cast<Mallctl>(::dlsym(RTLD_DEFAULT, "mallctl"));
  if (mallctl == nullptr)
    return false;
  if (version != nullptr) {
    const char* text = nullptr;
    std::size_t size = sizeof text;
    *version = mallctl("version", &text, &size, nullptr, 0) == 0 && text != nullptr ? text : "";
  }
  return true;
}

std::string configure_host_allocator(const std::string& mode) {
  if (mode == "system")
    return "glibc malloc, default thresholds (dynamic mmap threshold)" + huge_pages_text();
  if (mode == "glibc")
    return configure_glibc();
  if (mode != "tuned")
    throw UsageError("unknown host allocator mode '" + mode + "' (valid: tuned, glibc, system)");
  const std::string path = jemalloc_path();
  const std::string preload = env_or("LD_PRELOAD", "");
  std::string version;
  if (jemalloc_active(&version)) {
    // A measuring process (or one the user started on jemalloc): LibTorch's first allocation
    // comes after this.
    setenv("THP_MEM_ALLOC_ENABLE", "0", /*overwrite=*/0);
    return "jemalloc " + (version.empty() ? std::string("(version unknown)") : version) +
           ", MALLOC_CONF=" + env_or("MALLOC_CONF", "(jemalloc's defaults)") +
           jemalloc_pages_text();
  }
  if (!path.empty() && preload.find(path) != std::string::npos)
    throw Error("this process was started to measure on jemalloc (LD_PRELOAD=" + preload +
                ") but its malloc is not jemalloc's: the preload failed (see the loader's "
                "message above); --host-allocator glibc measures without it");
  if (path.empty() || !preload.empty()) {
    return configure_glibc() + (path.empty() ? "; no jemalloc found (libjemalloc2)"
                                             : "; jemalloc not preloaded: LD_PRELOAD is the "
                                               "user's (" +
                                                   preload + ")");
  }
  // The supervising process: what it sets reaches the processes it starts to measure, which
  // check that jemalloc serves them (above). It measures nothing itself.
  setenv("LD_PRELOAD", path.c_str(), 1);
  setenv("MALLOC_CONF", k_jemalloc_conf, /*overwrite=*/0);
  setenv("THP_MEM_ALLOC_ENABLE", "0", /*overwrite=*/0);
  return "jemalloc " + path +
         " preloaded into the measuring processes, MALLOC_CONF=" + env_or("MALLOC_CONF", "") +
         jemalloc_pages_text();
}

} // namespace opbench::machine
