// A GPU check for people who have one (issue #5). Needs a CUDA device; prints each figure and a
// verdict, and exits 1 when a check fails:
//  (a) a large device-to-device copy timed with CUDA events, and the bandwidth it implies;
//  (b) CUDA-event timing against host clock + synchronize timing on large operators: they must
//      agree within 5%;
//  (c) GPU time (CUDA-graph replays) against the batch time of eager launches on tiny operators:
//      the GPU time must be the smaller (launch overhead hidden).
//
//   build/bench/bench_gpu_check [device=cuda:0]

#include <cstdio>
#include <string>

#include "opbench/catalog/binder.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/machine/device_support.hpp"
#include "opbench/machine/host_allocator.hpp"
#include "opbench/plan/planner.hpp"

namespace {

using opbench::Json;

opbench::results::CaseResult run(const std::string& op, const Json& args, const std::string& device,
                                 const opbench::measure::ExecOptions& options) {
  const auto c =
      opbench::plan::make_case(op, opbench::catalog::bind_case(op, args, "gpu_check"), "float32",
                               device, 1, opbench::results::Direction::forward, 0);
  auto result = opbench::exec::run_case(c, options);
  if (result.status != opbench::results::Status::ok) {
    std::printf("  %s: %s\n", c.case_id.c_str(), result.message.c_str());
  }
  return result;
}

} // namespace

int main(int argc, char** argv) {
  const std::string device = argc > 1 ? argv[1] : "cuda:0";
  opbench::machine::configure_host_allocator("glibc");
  try {
    opbench::machine::check_device(device);
  } catch (const std::exception& e) {
    std::printf("gpu_check: %s\n", e.what());
    return 2;
  }
  const Json ctx = opbench::machine::cuda_device_context(std::stoi(device.substr(5)));
  std::printf("device: %s (%d SMs, %.1f GiB, L2 %.1f MiB)\n",
              ctx["name"].get<std::string>().c_str(), ctx["sm_count"].get<int>(),
              static_cast<double>(ctx["memory_bytes"].get<std::int64_t>()) / (1 << 30),
              static_cast<double>(ctx["l2_cache_bytes"].get<int>()) / (1 << 20));
  opbench::measure::ExecOptions options;
  options.memory = false;
  options.measure.min_time = 0.5;
  options.measure.max_time = 1.0;
  bool ok = true;

  // (a) copy_ of 1 GiB: 2 GiB moved per call.
  const std::int64_t elements = 256LL * 1024 * 1024;
  const auto copy =
      run("copy_", {{"self", Json::array({elements})}, {"src", Json::array({elements})}}, device,
          options);
  if (copy.status == opbench::results::Status::ok) {
    const double gbps = 2.0 * static_cast<double>(elements) * 4 / copy.summary.median / 1e9;
    std::printf("(a) copy of 1 GiB: median %.3f ms, %.0f GB/s (reads + writes)\n",
                copy.summary.median * 1e3, gbps);
  } else {
    ok = false;
  }

  // (b) events against host clock + synchronize.
  const std::pair<std::string, Json> large[] = {
      {"mm", {{"self", "8192x8192"}, {"mat2", "8192x8192"}}},
      {"add", {{"self", "8192x8192"}, {"other", "8192x8192"}}},
      {"softmax", {{"self", "8192x8192"}, {"dim", -1}}}};
  for (const auto& [op, args] : large) {
    opbench::measure::ExecOptions host = options;
    host.timer = opbench::measure::CudaTimer::host;
    const auto event_result = run(op, args, device, options);
    const auto host_result = run(op, args, device, host);
    if (event_result.status != opbench::results::Status::ok ||
        host_result.status != opbench::results::Status::ok) {
      ok = false;
      continue;
    }
    const double ratio = host_result.summary.median / event_result.summary.median;
    const bool agree = ratio > 0.95 && ratio < 1.05;
    ok = ok && agree;
    std::printf("(b) %-8s event %.3f ms, host+sync %.3f ms, ratio %.3f: %s\n", op.c_str(),
                event_result.summary.median * 1e3, host_result.summary.median * 1e3, ratio,
                agree ? "agree" : "DISAGREE");
  }

  // (c) GPU time (graph replays) against the batch time of eager launches on tiny operators.
  const std::pair<std::string, Json> tiny[] = {{"add", {{"self", "[1]"}, {"other", "[1]"}}},
                                               {"relu", {{"self", "[256]"}}}};
  for (const auto& [op, args] : tiny) {
    const auto result = run(op, args, device, options);
    if (result.status != opbench::results::Status::ok || result.timing.batch_times.empty()) {
      ok = false;
      continue;
    }
    const double batch = result.timing.batch_times.front();
    const bool faster =
        result.timing.measures == opbench::results::Measures::gpu && result.summary.median < batch;
    ok = ok && faster;
    std::printf("(c) %-8s batch %.2f us, GPU time %.2f us (%s): %s\n", op.c_str(), batch * 1e6,
                result.summary.median * 1e6, result.timing.cuda_graph.c_str(),
                faster ? "graph faster" : "GRAPH NOT FASTER");
  }
  std::printf("verdict: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
