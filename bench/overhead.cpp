// opbench's executor against a plain typed LibTorch loop, in one process.
//
// For each case, rounds alternate: opbench's executor (boxed dispatcher call, its own timing
// loop), then a hand-written loop `out = at::op(...)` over the very same input tensors, timed in
// blocks of the size opbench chose, with steady_clock. The ratio of the medians of the per-round
// medians is printed, with the spread of the per-round ratios.
//
//   build/bench/bench_overhead [overhead|validity] [rounds] [seconds per measurement]
//   build/bench/bench_overhead plain-add [seconds]
//   build/bench/bench_overhead canary [seconds]
//   build/bench/bench_overhead memory-canary [seconds]
//
// overhead (issue #2): 1-element add on 1 thread, mm 256x256, conv2d 1x64x56x56 with 64 3x3
//   filters, softmax over 1024x1024. Goal: <= 1.03 on the tiny op, within +-3% on the others.
// validity (issue #7): 12 operators at small, medium and large sizes. Goal: within +-3% for
//   cases over 10 us, <= 1.05 below.
// plain-add: only the plain loop of 1-element add on 1 thread (inputs made as opbench makes
//   them), blocks of 137 calls for `seconds` after 0.3 s of the same calls (dropped, as opbench
//   drops a fresh process's first 0.3 s), in six windows as opbench's six repetitions; prints the
//   median of the window medians and the mean of the fastest two (opbench's default estimator).
//   bench/fresh_add.sh runs it in fresh processes beside `opbench run` (issue #11: the same number
//   in every process).
// canary: single readings of opbench's speed canary (exec/canary.hpp, 1 thread) back to back for
//   `seconds`: the fastest, quantiles, the share of the time it ran over 10% slow, the longest such
//   spell (how often and how long this machine is slow: the case for re-measuring repetitions),
//   and how often one reading and the canary (the fastest of three) call the machine slow.
// memory-canary: the memory canary (exec/canary.hpp) on 2 threads and on 1, beside relu of
//   8x64x112x112 floats (out=, so no allocation) on 2 threads, in turns for `seconds`: per 1.5 s
//   window the medians of each, then over all turns how closely the 2-thread canary follows relu
//   (correlation of the two times) and relu's spread within the canary's usual band and outside
//   it (exec's set-aside rule, --bandwidth-tolerance 0.2): does the canary see what moves a case?

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "opbench/catalog/binder.hpp"
#include "opbench/exec/canary.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/exec/host_allocator.hpp"
#include "opbench/exec/inputs.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/result_set.hpp"
#include "opbench/stats/statistics.hpp"

namespace {

using opbench::Json;
using Args = std::vector<c10::IValue>;

struct BenchCase {
  std::string op;
  Json args;
  int threads; // 0: LibTorch's default
  // The plain loop on the prepared arguments: `out = at::op(...)` on tensors taken out of them
  // once, before the loop (plain_loop below); returns its median seconds per call.
  std::function<double(const Args&, std::int64_t k, std::size_t samples)> plain;
};

const at::Tensor& T(const Args& a, std::size_t i) {
  return a[i].toTensor();
}

// Median seconds per call of `call()` in a loop `out = call()`: `samples` blocks of `k` calls each.
// A template, so the loop calls the lambda directly (inlined), with no std::function between.
template <class Call> double loop_median(Call call, std::int64_t k, std::size_t samples) {
  at::NoGradGuard no_grad;
  at::Tensor out;
  for (int i = 0; i < 10; ++i)
    out = call();
  std::vector<double> per_call;
  for (std::size_t s = 0; s < samples; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::int64_t i = 0; i < k; ++i)
      out = call();
    const auto t1 = std::chrono::steady_clock::now();
    per_call.push_back(std::chrono::duration<double>(t1 - t0).count() / static_cast<double>(k));
  }
  return opbench::stats::median(per_call);
}

// A case's plain loop from `bind`, which takes the case's prepared arguments and returns the call
// on them (a lambda holding its tensors): the loop then neither unwraps arguments nor goes
// through a std::function per call, as a hand-written `out = at::op(x, y)` loop does not.
template <class Bind>
std::function<double(const Args&, std::int64_t, std::size_t)> plain_loop(Bind bind) {
  return [bind](const Args& args, std::int64_t k, std::size_t samples) {
    return loop_median(bind(args), k, samples);
  };
}

std::vector<BenchCase> overhead_suite() {
  return {
      {"add", {{"self", "[1]"}, {"other", "[1]"}}, 1, plain_loop([](const Args& a) {
         return [x = T(a, 0), y = T(a, 1)] { return at::add(x, y); };
       })},
      {"mm", {{"self", "256x256"}, {"mat2", "256x256"}}, 0, plain_loop([](const Args& a) {
         return [x = T(a, 0), y = T(a, 1)] { return at::mm(x, y); };
       })},
      {"conv2d",
       {{"input", "1x64x56x56"}, {"weight", "64x64x3x3"}, {"padding", 1}},
       0,
       plain_loop([](const Args& a) {
         return [x = T(a, 0), w = T(a, 1)] { return at::conv2d(x, w, {}, 1, 1); };
       })},
      {"softmax", {{"self", "1024x1024"}, {"dim", -1}}, 0, plain_loop([](const Args& a) {
         return [x = T(a, 0)] { return at::softmax(x, -1); };
       })},
  };
}

std::vector<BenchCase> validity_suite() {
  std::vector<BenchCase> cases;
  auto sizes = [](std::initializer_list<const char*> list) {
    return std::vector<std::string>(list.begin(), list.end());
  };
  for (const auto& s : sizes({"[64]", "256x256", "2048x2048"})) {
    cases.push_back({"add", {{"self", s}, {"other", s}}, 0, plain_loop([](const Args& a) {
                       return [x = T(a, 0), y = T(a, 1)] { return at::add(x, y); };
                     })});
    cases.push_back({"mul", {{"self", s}, {"other", s}}, 0, plain_loop([](const Args& a) {
                       return [x = T(a, 0), y = T(a, 1)] { return at::mul(x, y); };
                     })});
    cases.push_back({"relu", {{"self", s}}, 0, plain_loop([](const Args& a) {
                       return [x = T(a, 0)] { return at::relu(x); };
                     })});
    cases.push_back({"exp", {{"self", s}}, 0, plain_loop([](const Args& a) {
                       return [x = T(a, 0)] { return at::exp(x); };
                     })});
    cases.push_back({"sum", {{"self", s}}, 0, plain_loop([](const Args& a) {
                       return [x = T(a, 0)] { return at::sum(x); };
                     })});
    cases.push_back({"softmax", {{"self", s}, {"dim", -1}}, 0, plain_loop([](const Args& a) {
                       return [x = T(a, 0)] { return at::softmax(x, -1); };
                     })});
  }
  for (const auto& n : sizes({"16x16", "256x256", "1024x1024"})) {
    cases.push_back({"mm", {{"self", n}, {"mat2", n}}, 0, plain_loop([](const Args& a) {
                       return [x = T(a, 0), y = T(a, 1)] { return at::mm(x, y); };
                     })});
  }
  for (const auto& [x, w] : std::vector<std::pair<const char*, const char*>>{
           {"1x3x16x16", "8x3x3x3"}, {"1x64x56x56", "64x64x3x3"}, {"4x128x28x28", "128x128x3x3"}}) {
    cases.push_back(
        {"conv2d", {{"input", x}, {"weight", w}, {"padding", 1}}, 0, plain_loop([](const Args& a) {
           return [x = T(a, 0), w = T(a, 1)] { return at::conv2d(x, w, {}, 1, 1); };
         })});
  }
  for (const auto& x : sizes({"4x16x16x16", "1x64x112x112", "8x64x112x112"})) {
    cases.push_back({"max_pool2d",
                     {{"self", x}, {"kernel_size", 3}, {"stride", 2}, {"padding", 1}},
                     0,
                     plain_loop([](const Args& a) {
                       return [x = T(a, 0)] { return at::max_pool2d(x, 3, 2, 1); };
                     })});
  }
  for (const auto& [x, n] : std::vector<std::pair<const char*, int>>{
           {"4x32", 32}, {"128x768", 768}, {"1024x4096", 4096}}) {
    cases.push_back({"layer_norm",
                     {{"input", x},
                      {"normalized_shape", Json::array({n})},
                      {"weight", Json::array({n})},
                      {"bias", Json::array({n})}},
                     0,
                     plain_loop([n](const Args& a) {
                       return [n, x = T(a, 0), w = T(a, 2), b = T(a, 3)] {
                         return at::layer_norm(x, {n}, w, b);
                       };
                     })});
  }
  for (const auto& [table, rows] : std::vector<std::pair<const char*, int>>{
           {"100x16", 8}, {"30522x768", 1024}, {"30522x768", 16384}}) {
    cases.push_back({"index_select",
                     {{"self", table},
                      {"dim", 0},
                      {"index", {{"shape", {rows}}, {"dtype", "int64"}, {"high", 100}}}},
                     0,
                     plain_loop([](const Args& a) {
                       return [x = T(a, 0), i = T(a, 2)] { return at::index_select(x, 0, i); };
                     })});
  }
  for (const auto& s : sizes({"2x3", "64x56x56", "256x128x128"})) {
    cases.push_back(
        {"cat", {{"tensors", Json::array({s, s})}, {"dim", 0}}, 0, plain_loop([](const Args& a) {
           return [ts = a[0].toTensorVector()] { return at::cat(ts, 0); };
         })});
  }
  return cases;
}

} // namespace

// bench_overhead memory-canary (see the top of this file).
int memory_canary(double budget) {
  std::printf("host allocator: %s\n", opbench::exec::configure_host_allocator("tuned").c_str());
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
    const double canary2 = opbench::exec::memory_canary_bandwidth();
    const double relu2 = relu_seconds();
    at::set_num_threads(1);
    const double canary1 = opbench::exec::memory_canary_bandwidth();
    now = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    turns.push_back({now, canary2, canary1, relu2});
  }
  std::printf("memory canary: %.0f MiB; window medians (GB/s, GB/s, us):\n   t (s)  2 threads  1 "
              "thread  relu 2t\n",
              static_cast<double>(opbench::exec::memory_canary_bytes()) / (1 << 20));
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

int main(int argc, char** argv) {
  const std::string suite = argc > 1 ? argv[1] : "overhead";
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  const double seconds = argc > 3 ? std::atof(argv[3]) : 0.3;
  if (suite != "overhead" && suite != "validity" && suite != "plain-add" && suite != "canary" &&
      suite != "memory-canary") {
    std::fprintf(stderr, "usage: bench_overhead [overhead|validity] [rounds] [seconds]\n"
                         "       bench_overhead plain-add [seconds]\n"
                         "       bench_overhead canary [seconds]\n"
                         "       bench_overhead memory-canary [seconds]\n");
    return 2;
  }
  if (suite == "canary") {
    const double budget = argc > 2 ? std::atof(argv[2]) : 40.0;
    std::vector<std::pair<double, double>> taken; // (seconds since start, canary seconds)
    const auto start = std::chrono::steady_clock::now();
    double now = 0;
    while (now < budget) {
      const double c = opbench::exec::canary_reading(1);
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
  if (suite == "memory-canary")
    return memory_canary(argc > 2 ? std::atof(argv[2]) : 45.0);
  std::printf("host allocator: %s\n", opbench::exec::configure_host_allocator("tuned").c_str());
  if (suite == "plain-add") {
    const double budget = argc > 2 ? std::atof(argv[2]) : 0.5;
    const BenchCase b = overhead_suite().front(); // a copy: the vector is a temporary
    const auto c =
        opbench::plan::make_case(b.op, opbench::catalog::bind_case(b.op, b.args, "bench"),
                                 "float32", "cpu", 1, opbench::results::Direction::forward, 0);
    const opbench::exec::PreparedCall prepared = opbench::exec::prepare_call(c, false);
    at::set_num_threads(1);
    constexpr std::int64_t k_block = 137;
    // The first 0.3 s of calls are dropped, as opbench drops its process's first 0.3 s
    // (run_command.cpp, k_process_warmup_seconds): a fresh process runs slow for a while.
    const auto warm_start = std::chrono::steady_clock::now();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - warm_start).count() <
           0.3) {
      b.plain(prepared.args, k_block, 10);
    }
    const double per_block = b.plain(prepared.args, k_block, 200) * k_block;
    // Six windows, as opbench's six repetitions: the median of their medians (opbench's
    // estimate.median) and the mean of the fastest third of them (its default estimate,
    // --estimator fastest-third).
    constexpr int k_windows = 6;
    const auto samples = static_cast<std::size_t>(std::max(10.0, budget / per_block / k_windows));
    std::vector<double> windows;
    for (int w = 0; w < k_windows; ++w)
      windows.push_back(b.plain(prepared.args, k_block, samples));
    std::printf("plain add 1-element t1: median %.4f us, fastest third %.4f us\n",
                opbench::stats::median(windows) * 1e6,
                opbench::results::estimate_with("fastest-third", windows) * 1e6);
    return 0;
  }
  const int default_threads = at::get_num_threads();
  const auto cases = suite == "overhead" ? overhead_suite() : validity_suite();
  std::printf("%-58s %12s %12s %8s %11s %s\n", "case", "opbench", "plain", "ratio", "spread",
              "goal");
  int missed = 0;
  for (const auto& b : cases) {
    const int threads = b.threads > 0 ? b.threads : default_threads;
    const auto c = opbench::plan::make_case(
        b.op, opbench::catalog::bind_case(b.op, b.args, "bench"), "float32", "cpu", threads,
        opbench::results::Direction::forward, 0);
    // opbench and the plain loop time the very same input tensors: where buffers land in memory
    // alone moves some operators by several percent.
    opbench::exec::PreparedCall prepared = opbench::exec::prepare_call(c, false);
    opbench::exec::ExecOptions options;
    options.memory = false;
    options.measure.min_time = seconds;
    options.measure.max_time = seconds;
    options.measure.target_noise = 0; // a fixed time per measurement
    std::vector<double> ours, plain, ratios;
    for (int r = 0; r < rounds; ++r) {
      opbench::results::CaseResult result;
      result.c = c;
      at::set_num_threads(threads);
      opbench::exec::run_forward_prepared(c, prepared, options, result);
      if (result.status != opbench::results::Status::ok) {
        std::printf("%s: %s\n", c.case_id.c_str(), result.message.c_str());
        return 1;
      }
      at::set_num_threads(threads);
      const double p = b.plain(prepared.args, result.timing.block_size, result.samples.size());
      ours.push_back(result.summary.median);
      plain.push_back(p);
      ratios.push_back(result.summary.median / p);
    }
    std::sort(ratios.begin(), ratios.end());
    const double median = opbench::stats::median(ours);
    const double ratio = median / opbench::stats::median(plain);
    const bool tiny = suite == "overhead" ? b.op == "add" : median < 10e-6;
    const bool met =
        tiny ? ratio <= (suite == "overhead" ? 1.03 : 1.05) : std::abs(ratio - 1.0) <= 0.03;
    missed += met ? 0 : 1;
    std::printf("%-58.58s %9.3f us %9.3f us %8.4f %5.3f-%5.3f %s\n", c.case_id.c_str(),
                median * 1e6, opbench::stats::median(plain) * 1e6, ratio, ratios.front(),
                ratios.back(), met ? "met" : "MISSED");
  }
  std::printf("%d of %zu cases missed the goal\n", missed, cases.size());
  return 0;
}
