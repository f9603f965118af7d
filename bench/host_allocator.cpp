// The host allocator must not decide the result: `add` of two 64x64x128 float32 tensors (a
// 2 MiB output), in a plain loop that keeps the previous output alive while the next call runs
// and in one that frees it first, under glibc's default malloc settings and under opbench's glibc
// mode (run's default, jemalloc, is preloaded: bench/host_allocator.sh jemalloc compares them);
// plus opbench's own executor under both. Each mode runs in a forked child, since malloc
// settings are process-wide and glibc's dynamic threshold remembers history.
//
//   build/bench/bench_host_allocator [seconds per measurement=0.5]

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "opbench/catalog/binder.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/exec/inputs.hpp"
#include "opbench/machine/host_allocator.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/stats/statistics.hpp"

namespace {

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Median seconds per call over blocks of 10 calls for `seconds`; page faults per call.
template <typename Body> std::pair<double, double> time_loop(Body&& body, double seconds) {
  for (int i = 0; i < 20; ++i)
    body();
  std::vector<double> samples;
  const long faults0 = minor_faults();
  long calls = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 10; ++i)
      body();
    samples.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                      10);
    calls += 10;
  }
  return {opbench::stats::median(samples), static_cast<double>(minor_faults() - faults0) / calls};
}

// One measurement in a fresh process state: `variant` is "alive", "freed" or "opbench".
void run_one(const std::string& mode, const std::string& variant, double seconds) {
  const std::string description = opbench::machine::configure_host_allocator(mode);
  at::set_num_threads(1);
  at::NoGradGuard no_grad;
  double median = 0;
  double faults = 0;
  if (variant == "opbench") {
    const auto c = opbench::plan::make_case(
        "add",
        opbench::catalog::bind_case("add", {{"self", "64x64x128"}, {"other", "64x64x128"}},
                                    "bench"),
        "float32", "cpu", 1, opbench::results::Direction::forward, 0);
    opbench::measure::ExecOptions options;
    options.memory = false;
    options.measure.min_time = seconds;
    options.measure.max_time = seconds;
    options.measure.target_noise = 0;
    const long faults0 = minor_faults();
    const auto result = opbench::exec::run_case(c, options);
    median = result.summary.median;
    const double calls = static_cast<double>(result.timing.warmup_calls) +
                         static_cast<double>(result.timing.block_size *
                                             static_cast<std::int64_t>(result.samples.size()));
    faults = static_cast<double>(minor_faults() - faults0) / calls;
  } else if (variant == "boxed") {
    // opbench's boxed path (schemas without a typed fast path): two stacks, the previous
    // outputs released when the next call's arguments are copied in.
    const auto c = opbench::plan::make_case(
        "add",
        opbench::catalog::bind_case("add", {{"self", "64x64x128"}, {"other", "64x64x128"}},
                                    "bench"),
        "float32", "cpu", 1, opbench::results::Direction::forward, 0);
    const opbench::exec::PreparedCall call = opbench::exec::prepare_call(c, false);
    std::vector<c10::IValue> stack, previous;
    const auto timed = time_loop(
        [&] {
          stack.assign(call.args.begin(), call.args.end());
          call.handle.callBoxed(stack);
          stack.swap(previous);
        },
        seconds);
    median = timed.first;
    faults = timed.second;
  } else {
    const at::Tensor a = at::randn({64, 64, 128}), b = at::randn({64, 64, 128});
    at::Tensor kept;
    const auto timed = variant == "alive"
                           ? time_loop([&] { kept = at::add(a, b); }, seconds)
                           : time_loop([&] { at::Tensor out = at::add(a, b); }, seconds);
    median = timed.first;
    faults = timed.second;
  }
  std::printf("%-7s %-36s %9.1f us %8.1f\n", mode.c_str(),
              variant == "alive"   ? "plain loop, previous output alive"
              : variant == "freed" ? "plain loop, output freed first"
              : variant == "boxed" ? "boxed-call loop (opbench, other ops)"
                                   : "opbench executor (typed path)",
              median * 1e6, faults);
}

} // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.5;
  std::printf(
      "add of two 64x64x128 float32 tensors (2 MiB output), 1 thread; each line a fresh process\n");
  std::printf("%-7s %-36s %12s %8s\n", "malloc", "loop", "median/call", "faults/call");
  std::fflush(stdout);
  for (const std::string mode : {"system", "glibc"}) {
    for (const std::string variant : {"alive", "freed", "boxed", "opbench"}) {
      const pid_t pid = fork();
      if (pid == 0) {
        run_one(mode, variant, seconds);
        std::fflush(stdout);
        std::_Exit(0);
      }
      int status = 0;
      waitpid(pid, &status, 0);
    }
  }
  return 0;
}
