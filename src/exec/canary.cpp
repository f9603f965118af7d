#include "opbench/exec/canary.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

namespace opbench::exec {
namespace {

constexpr int k_iterations = 80000;

// One thread's loop; returns its seconds. The chain depends on itself, so it cannot be
// vectorised or shortened, and its result is kept so it cannot be dropped.
double one_loop(std::uint64_t seed) {
  static std::atomic<std::uint64_t> sink{0};
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t x = seed | 1;
  for (int i = 0; i < k_iterations; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  const auto stop = std::chrono::steady_clock::now();
  sink.fetch_add(x, std::memory_order_relaxed);
  return std::chrono::duration<double>(stop - start).count();
}

}  // namespace

double canary_reading(int threads) {
  const int n = std::max(1, threads);
  std::vector<double> seconds(static_cast<std::size_t>(n), 0.0);
  // Each index is timed by the thread that runs it, so waking the pool is not in the time.
  at::parallel_for(0, n, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) seconds[static_cast<std::size_t>(i)] = one_loop(static_cast<std::uint64_t>(i));
  });
  return *std::max_element(seconds.begin(), seconds.end());
}

double canary_seconds(int threads) {
  return std::min({canary_reading(threads), canary_reading(threads), canary_reading(threads)});
}

}  // namespace opbench::exec
