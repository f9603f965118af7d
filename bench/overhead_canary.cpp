// bench_overhead canary and memory-canary (see bench/overhead.cpp's top): how often and how
// long this machine is slow, and whether the memory canary sees what moves a memory-bound case.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "opbench/machine/canary.hpp"
#include "opbench/machine/host_allocator.hpp"
#include "opbench/stats/statistics.hpp"
#include "overhead_parts.hpp"

int canary(double budget) {
  std::vector<std::pair<double, double>> taken; // (seconds since start, canary seconds)
  const auto start = std::chrono::steady_clock::now();
  double now = 0;
  while (now < budget) {
    const double c = opbench::machine::canary_reading(1);
    now = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    taken.emplace_back(now, c);
  }
  std::vector<double> values;
  for (const auto& t : taken)
    values.push_back(t.second);
  const double fastest = *std::min_element(values.begin(), values.end());
  // Slowness over 25 ms windows (the median canary of each): a single 0.1 ms canary is hit by
  // a timer tick now and then; a window is slow when the machine is.
  constexpr double k_window = 0.025;
  std::vector<bool> slow_windows;
  std::vector<double> window;
  double window_end = k_window;
  for (const auto& [at, c] : taken) {
    if (at > window_end) {
      if (!window.empty())
        slow_windows.push_back(opbench::stats::median(window) > 1.10 * fastest);
      window.clear();
      window_end += k_window;
    }
    window.push_back(c);
  }
  std::size_t slow = 0, run = 0, longest = 0;
  for (bool w : slow_windows) {
    slow += w ? 1 : 0;
    run = w ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::printf(
      "canary x%zu over %.0f s: fastest %.3f us, p10 %.3f, median %.3f, p90 %.3f, max %.3f us\n",
      values.size(), now, fastest * 1e6, opbench::stats::percentile(values, 0.1) * 1e6,
      opbench::stats::median(values) * 1e6, opbench::stats::percentile(values, 0.9) * 1e6,
      *std::max_element(values.begin(), values.end()) * 1e6);
  std::printf("25 ms windows whose median canary is over 10%% slower than the fastest: %zu of "
              "%zu (%.1f%%); "
              "longest run of them %.2f s\n",
              slow, slow_windows.size(),
              100.0 * slow / std::max<std::size_t>(1, slow_windows.size()),
              static_cast<double>(longest) * k_window);
  // How often a repetition would be called slow (canary over 10% above the fastest) by one
  // reading, and by opbench's canary, the fastest of three readings back to back.
  std::size_t single = 0, triples = 0, triple_slow = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    single += values[i] > 1.10 * fastest ? 1 : 0;
    if (i % 3 == 2) {
      ++triples;
      triple_slow += std::min({values[i - 2], values[i - 1], values[i]}) > 1.10 * fastest ? 1 : 0;
    }
  }
  std::printf(
      "called slow (over 10%% above the fastest): one reading %.1f%%, fastest of three %.1f%%\n",
      100.0 * single / values.size(), 100.0 * triple_slow / std::max<std::size_t>(1, triples));
  return 0;
}

// bench_overhead memory-canary (see the top of this file).
int memory_canary(double budget) {
  std::printf("host allocator: %s\n", opbench::machine::configure_host_allocator("glibc").c_str());
  const at::Tensor x = at::randn({8 * 64 * 112 * 112});
  at::Tensor y = at::empty_like(x);
  auto relu_seconds = [&] {
    std::vector<double> v;
    for (int i = 0; i < 5; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      at::clamp_min_out(y, x, 0.0);
      v.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return opbench::stats::median(v);
  };
  struct Turn {
    double at, canary2, canary1, relu2;
  };
  std::vector<Turn> turns;
  const auto start = std::chrono::steady_clock::now();
  double now = 0;
  while (now < budget) {
    at::set_num_threads(2);
    const double canary2 = opbench::machine::memory_canary_bandwidth();
    const double relu2 = relu_seconds();
    at::set_num_threads(1);
    const double canary1 = opbench::machine::memory_canary_bandwidth();
    now = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    turns.push_back({now, canary2, canary1, relu2});
  }
  std::printf("memory canary: %.0f MiB; window medians (GB/s, GB/s, us):\n   t (s)  2 threads  1 "
              "thread  relu 2t\n",
              static_cast<double>(opbench::machine::memory_canary_bytes()) / (1 << 20));
  for (double w = 0; w < now; w += 1.5) {
    std::vector<double> c2, c1, r2;
    for (const auto& t : turns) {
      if (t.at < w || t.at >= w + 1.5)
        continue;
      c2.push_back(t.canary2 / 1e9);
      c1.push_back(t.canary1 / 1e9);
      r2.push_back(t.relu2 * 1e6);
    }
    if (r2.empty())
      continue;
    std::printf("  %6.1f  %9.1f  %8.1f  %7.0f\n", w, opbench::stats::median(c2),
                opbench::stats::median(c1), opbench::stats::median(r2));
  }
  // Correlation of the canary's time (1 / bandwidth) with relu's time.
  std::vector<double> a, b, canaries;
  for (const auto& t : turns) {
    a.push_back(1.0 / t.canary2);
    b.push_back(t.relu2);
    canaries.push_back(t.canary2);
  }
  const double ma = opbench::stats::mean(a), mb = opbench::stats::mean(b);
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  const double usual = opbench::stats::usual_level(canaries, 0.2);
  std::vector<double> in, out;
  for (const auto& t : turns)
    (opbench::stats::is_usual(t.canary2, usual, 0.2) ? in : out).push_back(t.relu2 * 1e6);
  std::printf(
      "%zu turns: correlation of the 2-thread canary's time with relu's %.2f; usual %.1f GB/s\n",
      turns.size(), sab / std::sqrt(saa * sbb), usual / 1e9);
  auto describe = [](const char* what, std::vector<double> v) {
    if (v.empty())
      return std::printf("  relu %s: none\n", what);
    return std::printf("  relu %s: %zu turns, min %.0f us, median %.0f, max %.0f\n", what, v.size(),
                       *std::min_element(v.begin(), v.end()), opbench::stats::median(v),
                       *std::max_element(v.begin(), v.end()));
  };
  describe("at the usual bandwidth", in);
  describe("at another bandwidth (set aside)", out);
  return 0;
}
