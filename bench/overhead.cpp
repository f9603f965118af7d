// Overhead of opbench's executor against a plain typed LibTorch loop, in one process.
//
// For each case, rounds alternate: opbench's run_case (boxed dispatcher call, its own timing
// loop), then a hand-written loop `out = at::op(...)` timed in blocks of the same size with
// steady_clock. The ratio of the medians of the per-round medians is printed.
// Goal (issue #2): <= 1.03 on the 1-element add, within +-3% on the medium ops.
//
//   build/bench/bench_overhead [rounds=7] [seconds per measurement=0.3]

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "opbench/catalog/binder.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/exec/host_allocator.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/stats/statistics.hpp"

namespace {

using opbench::Json;

struct BenchCase {
  std::string label;
  std::string op;
  Json args;
  int threads;
  std::function<at::Tensor()> make_plain;  // returns a callable's output; inputs captured inside
};

opbench::plan::Case make_case(const BenchCase& b) {
  return opbench::plan::make_case(b.op, opbench::catalog::bind_case(b.op, b.args, "bench"), "float32",
                                  "cpu", b.threads, "forward", 0);
}

// Median seconds per call of a plain loop: `samples` blocks of `k` calls each.
double plain_median(const std::function<at::Tensor()>& call, std::int64_t k, std::size_t samples) {
  at::NoGradGuard no_grad;
  at::Tensor out;
  for (int i = 0; i < 10; ++i) out = call();
  std::vector<double> per_call;
  for (std::size_t s = 0; s < samples; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::int64_t i = 0; i < k; ++i) out = call();
    const auto t1 = std::chrono::steady_clock::now();
    per_call.push_back(std::chrono::duration<double>(t1 - t0).count() / static_cast<double>(k));
  }
  return opbench::stats::median(per_call);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 0.3;
  std::printf("host allocator: %s\n", opbench::exec::configure_host_allocator("tuned").c_str());

  const at::Tensor one_a = at::randn({1}), one_b = at::randn({1});
  const at::Tensor mm_a = at::randn({256, 256}), mm_b = at::randn({256, 256});
  const at::Tensor conv_x = at::randn({1, 64, 56, 56}), conv_w = at::randn({64, 64, 3, 3});
  const at::Tensor soft_x = at::randn({1024, 1024});
  const int threads = at::get_num_threads();
  const std::vector<BenchCase> cases = {
      {"add 1 element (1 thread)", "add", {{"self", "[1]"}, {"other", "[1]"}}, 1,
       [&] { return at::add(one_a, one_b); }},
      {"mm 256x256", "mm", {{"self", "256x256"}, {"mat2", "256x256"}}, threads,
       [&] { return at::mm(mm_a, mm_b); }},
      {"conv2d 1x64x56x56, 64 3x3", "conv2d",
       {{"input", "1x64x56x56"}, {"weight", "64x64x3x3"}, {"padding", 1}}, threads,
       [&] { return at::conv2d(conv_x, conv_w, {}, 1, 1); }},
      {"softmax 1024x1024", "softmax", {{"self", "1024x1024"}, {"dim", -1}}, threads,
       [&] { return at::softmax(soft_x, -1); }},
  };

  std::printf("%-28s %7s %12s %12s %8s %8s\n", "case", "threads", "opbench", "plain", "ratio",
              "spread");
  for (const auto& b : cases) {
    const auto c = make_case(b);
    opbench::exec::ExecOptions options;
    options.memory = false;
    options.measure.min_time = seconds;
    options.measure.max_time = seconds;
    options.measure.target_noise = 0;  // fixed time per measurement
    std::vector<double> ours, plain, ratios;
    for (int r = 0; r < rounds; ++r) {
      const auto result = opbench::exec::run_case(c, options);
      if (result.status != "ok") {
        std::printf("%s: %s\n", b.label.c_str(), result.message.c_str());
        return 1;
      }
      at::set_num_threads(b.threads);
      const double p = plain_median(b.make_plain, result.timing.block_size, result.samples.size());
      ours.push_back(result.summary.median);
      plain.push_back(p);
      ratios.push_back(result.summary.median / p);
    }
    std::sort(ratios.begin(), ratios.end());
    const double ratio = opbench::stats::median(ours) / opbench::stats::median(plain);
    std::printf("%-28s %7d %9.3f us %9.3f us %8.4f %3.2f-%3.2f\n", b.label.c_str(), b.threads,
                opbench::stats::median(ours) * 1e6, opbench::stats::median(plain) * 1e6, ratio,
                ratios.front(), ratios.back());
  }
  return 0;
}
