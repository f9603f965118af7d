// opbench's executor against a plain typed LibTorch loop, in one process.
//
// For each case, rounds alternate: opbench's executor (boxed dispatcher call, its own timing
// loop), then a hand-written loop `out = at::op(...)` over the very same input tensors, timed in
// blocks of the size opbench chose, with steady_clock. The ratio of the medians of the per-round
// medians is printed, with the spread of the per-round ratios.
//
//   build/bench/bench_overhead [overhead|validity] [rounds] [seconds per measurement]
//   build/bench/bench_overhead custom-op LIBRARY [rounds] [seconds per measurement]
//   build/bench/bench_overhead plain-add [seconds]
//   build/bench/bench_overhead canary [seconds]
//   build/bench/bench_overhead memory-canary [seconds]
//
// overhead (issue #2): 1-element add on 1 thread, mm 256x256, conv2d 1x64x56x56 with 64 3x3
//   filters, softmax over 1024x1024. Goal: <= 1.03 on the tiny op, within +-3% on the others.
// validity (issue #7): 12 operators at small, medium and large sizes. Goal: within +-3% for
//   cases over 10 us, <= 1.05 below.
// custom-op (issue #41): examples/custom_op's myops::fast_gelu, loaded from LIBRARY, at 1, 64x64
//   and 1024x3072 elements on 1 thread, against a plain loop calling its typed dispatcher handle
//   (`out = op.call(x)`, as a C++ user of the operator calls it). Goal: within +-3% (<= 1.03
//   under 10 us).
// plain-add: only the plain loop of 1-element add on 1 thread (inputs made as opbench makes
//   them), blocks of 137 calls for `seconds` after 0.3 s of the same calls (dropped, as opbench
//   drops a fresh process's first 0.3 s), in six windows as opbench's six repetitions; prints the
//   median of the window medians and the mean of the fastest two (opbench's default estimator).
//   bench/fresh_add.sh runs it in fresh processes beside `opbench run` (issue #11: the same number
//   in every process).
// canary: single readings of opbench's speed canary (machine/canary.hpp, 1 thread) back to back for
//   `seconds`: the fastest, quantiles, the share of the time it ran over 10% slow, the longest such
//   spell (how often and how long this machine is slow: the case for re-measuring repetitions),
//   and how often one reading and the canary (the fastest of three) call the machine slow.
// memory-canary: the memory canary (machine/canary.hpp) on 2 threads and on 1, beside relu of
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
#include "opbench/catalog/libraries.hpp"
#include "opbench/exec/inputs.hpp"
#include "opbench/machine/host_allocator.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/result_set.hpp"
#include "opbench/stats/statistics.hpp"
#include "overhead_parts.hpp"

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

// A loaded library's operator `(Tensor) -> Tensor` in a plain loop through its typed handle.
std::vector<BenchCase> custom_op_suite() {
  std::vector<BenchCase> cases;
  for (const char* s : {"[1]", "64x64", "1024x3072"}) {
    cases.push_back({"myops::fast_gelu", {{"self", s}}, 1, plain_loop([](const Args& a) {
                       const auto op = c10::Dispatcher::singleton()
                                           .findSchemaOrThrow("myops::fast_gelu", "")
                                           .typed<at::Tensor(const at::Tensor&)>();
                       return [op, x = T(a, 0)] { return op.call(x); };
                     })});
  }
  return cases;
}

} // namespace

int main(int argc, char** argv) {
  const std::string suite = argc > 1 ? argv[1] : "overhead";
  if (suite == "custom-op") { // the library first: the other arguments as the other suites'
    if (argc < 3) {
      std::fprintf(stderr, "usage: bench_overhead custom-op LIBRARY [rounds] [seconds]\n");
      return 2;
    }
    opbench::catalog::load_library(argv[2], "bench_overhead");
    --argc;
    ++argv;
  }
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  const double seconds = argc > 3 ? std::atof(argv[3]) : 0.3;
  if (suite != "overhead" && suite != "validity" && suite != "custom-op" && suite != "plain-add" &&
      suite != "canary" && suite != "memory-canary") {
    std::fprintf(stderr, "usage: bench_overhead [overhead|validity] [rounds] [seconds]\n"
                         "       bench_overhead custom-op LIBRARY [rounds] [seconds]\n"
                         "       bench_overhead plain-add [seconds]\n"
                         "       bench_overhead canary [seconds]\n"
                         "       bench_overhead memory-canary [seconds]\n");
    return 2;
  }
  if (suite == "canary")
    return canary(argc > 2 ? std::atof(argv[2]) : 40.0);
  if (suite == "memory-canary")
    return memory_canary(argc > 2 ? std::atof(argv[2]) : 45.0);
  std::printf("host allocator: %s\n", opbench::machine::configure_host_allocator("glibc").c_str());
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
  const auto cases = suite == "overhead"    ? overhead_suite()
                     : suite == "custom-op" ? custom_op_suite()
                                            : validity_suite();
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
    opbench::measure::ExecOptions options;
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
        tiny ? ratio <= (suite == "validity" ? 1.05 : 1.03) : std::abs(ratio - 1.0) <= 0.03;
    missed += met ? 0 : 1;
    std::printf("%-58.58s %9.3f us %9.3f us %8.4f %5.3f-%5.3f %s\n", c.case_id.c_str(),
                median * 1e6, opbench::stats::median(plain) * 1e6, ratio, ratios.front(),
                ratios.back(), met ? "met" : "MISSED");
  }
  std::printf("%d of %zu cases missed the goal\n", missed, cases.size());
  return 0;
}
