// Device paths: CPU cold mode runs here; CUDA tests run where a CUDA device is visible and are
// skipped, saying why, everywhere else.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "opbench/catalog/binder.hpp"
#include "opbench/core/error.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/machine/device_support.hpp"
#include "opbench/plan/planner.hpp"
#include "quick_exec.hpp"

namespace opbench::machine {

using exec::run_case;
using measure::CudaTimer;
using measure::ExecOptions;
using measure::quick_exec_options;

namespace {

results::Case make_case(const std::string& op, const Json& args, const std::string& device) {
  return plan::make_case(op, catalog::bind_case(op, args, "test"), "float32", device, 1,
                         results::Direction::forward, 3);
}

ExecOptions quick() {
  return quick_exec_options(8);
}

#define SKIP_WITHOUT_CUDA_DEVICE()                                                                 \
  if (cuda_device_count() == 0) {                                                                  \
    GTEST_SKIP() << "no CUDA device visible ("                                                     \
                 << (cuda_compiled() ? "CUDA code compiled in" : "built without CUDA")             \
                 << "): this path is only compiled here";                                          \
  }

TEST(CudaBuild, CudaCodeIsCompiledWheneverLibTorchHasCuda) {
  // The PyPI wheel has CUDA: a build that silently left opbench's CUDA code out fails here.
  EXPECT_EQ(cuda_compiled(), libtorch_has_cuda_kernels());
}

TEST(ColdMode, CpuFlushesTheLastLevelCacheAndTimesEachCall) {
  EXPECT_GE(flush_bytes("cpu"), 1 << 20);
  ExecOptions options = quick();
  options.cold = true;
  const auto result =
      run_case(make_case("add", {{"self", "64x64"}, {"other", "64x64"}}, "cpu"), options);
  ASSERT_EQ(result.status, results::Status::ok) << result.message;
  EXPECT_EQ(result.timing.mode, "cold");
  EXPECT_EQ(result.timing.block_size, 1);
  EXPECT_EQ(result.timing.timer, results::Timer::steady_clock);
  EXPECT_GE(result.samples.size(), 8u);
}

TEST(CudaDevice, MissingDeviceIsAClearError) {
  if (cuda_device_count() > 0)
    GTEST_SKIP() << "a CUDA device is visible";
  try {
    check_device("cuda:0");
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    const std::string expected = cuda_compiled()
                                     ? "device cuda:0 is not available: LibTorch is built with "
                                       "CUDA and 0 CUDA device(s) are visible"
                                     : "device cuda:0 is not available: this opbench is built "
                                       "against a LibTorch without CUDA";
    EXPECT_EQ(e.what(), expected);
  }
  EXPECT_THROW(flush_bytes("cuda:0"), std::exception);
  EXPECT_THROW(data_caches("cuda:0"), std::exception);
}

// The roofline's levels: the CPU's data caches; a GPU's L2, the level its cold mode flushes.
TEST(RooflineLevels, TheCpusDataCachesAndAGpusL2) {
  // The CPU's: the levels the kernel lists (/sys/devices/system/cpu/cpu0/cache), instruction
  // caches left out, ordered L1d, L2, L3..., each larger than the one before, the last the level
  // the memory canary and cold mode size themselves by.
  const auto levels_of_cpu = data_caches("cpu");
  EXPECT_EQ(levels_of_cpu, cpu_data_caches());
  if (levels_of_cpu.empty())
    GTEST_SKIP() << "this machine's kernel lists no CPU caches";
  EXPECT_EQ(levels_of_cpu.front().first, "L1d");
  for (std::size_t i = 1; i < levels_of_cpu.size(); ++i) {
    std::string name = "L"; // (built in steps: GCC 12 misreads "L" + to_string as an overflow)
    name += std::to_string(i + 1);
    EXPECT_EQ(levels_of_cpu[i].first, name);
    EXPECT_GT(levels_of_cpu[i].second, levels_of_cpu[i - 1].second) << levels_of_cpu[i].first;
  }
  EXPECT_GE(levels_of_cpu.front().second, 4096);
  EXPECT_EQ(levels_of_cpu.back().second, last_level_cache_bytes());
  if (cuda_device_count() == 0)
    return; // the GPU's below is run where one is visible (bench/gpu_check.sh)
  const auto levels = data_caches("cuda:0");
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_EQ(levels[0].first, "L2");
  EXPECT_EQ(levels[0].second, flush_bytes("cuda:0"));
  EXPECT_GE(levels[0].second, 1 << 20);
}

TEST(CudaDevice, EventTimerAndDeviceMemory) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const auto result = run_case(
      make_case("add", {{"self", "1024x1024"}, {"other", "1024x1024"}}, "cuda:0"), quick());
  ASSERT_EQ(result.status, results::Status::ok) << result.message;
  EXPECT_EQ(result.timing.timer, results::Timer::cuda_event);
  ASSERT_TRUE(result.memory.has_value());
  EXPECT_EQ(result.memory->peak_bytes, 4194304); // the same reporter sees the caching allocator
  ASSERT_TRUE(result.memory->device_peak_allocated_bytes.has_value());
  EXPECT_GE(*result.memory->device_peak_allocated_bytes, 3 * 4194304); // inputs + output
  EXPECT_GE(*result.memory->device_peak_reserved_bytes,
            *result.memory->device_peak_allocated_bytes);
}

TEST(CudaDevice, HostTimerColdModeAndGraphs) {
  SKIP_WITHOUT_CUDA_DEVICE();
  ExecOptions host = quick();
  host.timer = CudaTimer::host;
  EXPECT_EQ(run_case(make_case("relu", {{"self", "[4096]"}}, "cuda:0"), host).timing.timer,
            results::Timer::host_sync);
  ExecOptions cold = quick();
  cold.cold = true;
  const auto cold_result = run_case(make_case("relu", {{"self", "[4096]"}}, "cuda:0"), cold);
  EXPECT_EQ(cold_result.timing.mode, "cold");
  EXPECT_EQ(cold_result.timing.block_size, 1);
  // Timed alone: one eager call an interval behind the launch gate, no graph (docs/cuda.md).
  EXPECT_EQ(cold_result.timing.measures, results::Measures::gpu);
  EXPECT_EQ(cold_result.timing.cuda_graph.rfind("off: one call an interval; launch gated: ", 0), 0u)
      << cold_result.timing.cuda_graph;
  // A call that draws random numbers needs no graph when timed alone.
  const auto cold_random = run_case(
      make_case("randint", {{"high", 100}, {"size", Json::array({8, 128})}}, "cuda:0"), cold);
  ASSERT_EQ(cold_random.status, results::Status::ok) << cold_random.message;
  EXPECT_EQ(cold_random.timing.measures, results::Measures::gpu) << cold_random.timing.cuda_graph;
  // One that waits for the device is timed alone as the batch time is: the wait would hold the
  // gate open.
  const auto cold_sync = run_case(make_case("nonzero", {{"self", "[4096]"}}, "cuda:0"), cold);
  ASSERT_EQ(cold_sync.status, results::Status::ok) << cold_sync.message;
  EXPECT_EQ(cold_sync.timing.measures, results::Measures::batch);
  EXPECT_EQ(cold_sync.timing.cuda_graph.rfind("fallback: the call waits for the device", 0), 0u)
      << cold_sync.timing.cuda_graph;
  // The default CUDA timing: GPU time from graph replays, CPU and batch time beside it.
  const auto gpu = run_case(make_case("relu", {{"self", "[4096]"}}, "cuda:0"), quick());
  ASSERT_EQ(gpu.status, results::Status::ok) << gpu.message;
  EXPECT_EQ(gpu.timing.measures, results::Measures::gpu);
  EXPECT_EQ(gpu.timing.cuda_graph.rfind("on (", 0), 0u) << gpu.timing.cuda_graph;
  ASSERT_EQ(gpu.timing.cpu_times.size(), 1u);
  ASSERT_EQ(gpu.timing.batch_times.size(), 1u);
  // A 4096-element relu launches slower than it runs: eager back-to-back calls are launch bound,
  // the graph hides the launches.
  EXPECT_LT(gpu.summary.median, gpu.timing.batch_times[0]);
  // A call that draws random numbers is not captured (LibTorch's generator and graphs disagree
  // from the second capture on: "Offset increment outside graph capture").
  for (int repetition = 0; repetition < 2; ++repetition) {
    const auto random = run_case(
        make_case("randint", {{"high", 100}, {"size", Json::array({8, 128})}}, "cuda:0"), quick());
    ASSERT_EQ(random.status, results::Status::ok) << random.message;
    EXPECT_EQ(random.timing.measures, results::Measures::batch);
  }
  // A call that cannot be captured (nonzero synchronises) falls back to the batch time.
  const auto sync = run_case(make_case("nonzero", {{"self", "[4096]"}}, "cuda:0"), quick());
  ASSERT_EQ(sync.status, results::Status::ok) << sync.message;
  EXPECT_EQ(sync.timing.measures, results::Measures::batch);
  EXPECT_EQ(sync.timing.cuda_graph.rfind("fallback: ", 0), 0u) << sync.timing.cuda_graph;
  // An in-place call, one eager call an interval after its restore, runs behind the launch gate,
  // and the spin lasted until the host had queued the call in nearly every interval
  // (docs/cuda.md).
  const auto in_place = run_case(make_case("tan_", {{"self", "[16]"}}, "cuda:0"), quick());
  ASSERT_EQ(in_place.status, results::Status::ok) << in_place.message;
  EXPECT_EQ(in_place.timing.measures, results::Measures::gpu);
  EXPECT_EQ(in_place.timing.cuda_graph.rfind("off: one call an interval; launch gated: spin ", 0),
            0u)
      << in_place.timing.cuda_graph;
  EXPECT_GT(in_place.summary.median, 0.0);
  long late = -1;
  long intervals = 0;
  const auto counts = in_place.timing.cuda_graph.find(" us, ");
  ASSERT_NE(counts, std::string::npos) << in_place.timing.cuda_graph;
  ASSERT_EQ(std::sscanf(in_place.timing.cuda_graph.c_str() + counts, " us, %ld of %ld", &late,
                        &intervals),
            2)
      << in_place.timing.cuda_graph;
  EXPECT_GT(intervals, 0);
  // Late while the spin finds its length (at most 9 doublings, 20 us to 10 ms), then under 5%.
  EXPECT_LE(late, 9 + intervals / 20) << in_place.timing.cuda_graph;
  const Json ctx = cuda_device_context(0);
  EXPECT_GT(ctx["sm_count"].get<int>(), 0);
  EXPECT_GT(ctx["l2_cache_bytes"].get<int>(), 0);
}

} // namespace
} // namespace opbench::machine
