#include "opbench/machine/canary.hpp"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "opbench/machine/device_support.hpp"

namespace opbench::machine {
namespace {

constexpr int k_iterations = 80000;

// One thread's loop; returns its seconds. The chain depends on itself, so it cannot be
// vectorised or shortened, and its result is kept so it cannot be dropped.
double one_loop(std::uint64_t seed) {
  static std::atomic<std::uint64_t> sink{0};
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t x = seed | 1;
  for (int i = 0; i < k_iterations; ++i)
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  const auto stop = std::chrono::steady_clock::now();
  sink.fetch_add(x, std::memory_order_relaxed);
  return std::chrono::duration<double>(stop - start).count();
}

constexpr std::size_t k_huge_page = std::size_t{2} << 20;

// The buffer: floats of 1, mapped and written once on first use (so its pages exist), kept for
// the process, seen by LibTorch as a tensor. On 2 MiB-aligned memory marked for transparent huge
// pages before it is written, as the measuring processes' malloc marks the cases' tensors
// (host_allocator.hpp): on 4 KiB pages one thread read 64 MiB buffers of one
// process at 16.1-18.2 GB/s, each its own speed for as long as it lived (where its pages landed),
// and on huge pages at 30.3-30.8 GB/s, all alike (2026-11-25, 6 buffers in turns, 3 processes).
struct MemoryCanaryBuffer {
  at::Tensor values;
  at::Tensor sum;
  MemoryCanaryBuffer() {
    const auto bytes = static_cast<std::size_t>(memory_canary_bytes());
    void* mapped = mmap(nullptr, bytes + k_huge_page, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED)
      return;
    const auto address = reinterpret_cast<std::uintptr_t>(mapped);
    void* p = reinterpret_cast<void*>((address + k_huge_page - 1) / k_huge_page * k_huge_page);
    madvise(p, bytes, MADV_HUGEPAGE); // a hint: with THP "never" the pages stay small
    const auto count = static_cast<std::int64_t>(bytes / sizeof(float));
    std::fill_n(static_cast<float*>(p), count, 1.0f);
    values = at::from_blob(p, {count}, at::TensorOptions().dtype(at::kFloat));
    sum = at::empty({}, at::TensorOptions().dtype(at::kFloat));
  }
};

// One reading: the wall time of LibTorch's sum over the buffer into a kept output, on the intra-op
// threads the case runs on. LibTorch's own kernel, not a loop of opbench's: ATen's parallel_for is
// a serial loop in code built without OpenMP, as opbench is, so only LibTorch's kernels run on its
// threads. Per-thread clocks would not see what slows a multi-threaded case most here: threads
// that do not run at the same time.
double memory_reading() {
  static const MemoryCanaryBuffer buffer;
  if (!buffer.values.defined())
    return 0.0;
  at::Tensor out = buffer.sum;
  const auto start = std::chrono::steady_clock::now();
  at::sum_out(out, buffer.values, at::IntArrayRef{});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return seconds > 0 ? static_cast<double>(buffer.values.nbytes()) / seconds : 0.0;
}

} // namespace

std::int64_t memory_canary_bytes() {
  return 2 * last_level_cache_bytes();
}

std::int64_t memory_bound_bytes() {
  return last_level_cache_bytes() / 4;
}

double memory_canary_bandwidth() {
  return std::max(memory_reading(), memory_reading());
}

double canary_reading(int threads) {
  const int n = std::max(1, threads);
  std::vector<double> seconds(static_cast<std::size_t>(n), 0.0);
  // Each index is timed on its own. In opbench's build parallel_for runs them one after another on
  // the calling thread (canary.hpp); kept as it is, as the retry rule's figures were measured so.
  at::parallel_for(0, n, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i)
      seconds[static_cast<std::size_t>(i)] = one_loop(static_cast<std::uint64_t>(i));
  });
  return *std::max_element(seconds.begin(), seconds.end());
}

double canary_seconds(int threads) {
  return std::min({canary_reading(threads), canary_reading(threads), canary_reading(threads)});
}

} // namespace opbench::machine
