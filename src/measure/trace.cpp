#include "trace.hpp"

#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <set>

#include "opbench/core/error.hpp"
#include "opbench/results/trace_marks.hpp"

#if OPBENCH_WITH_CUDA
#include <ATen/cuda/Sleep.h>
#include <c10/cuda/CUDAStream.h>
#include <kineto/ActivityType.h>
#endif

namespace opbench::measure {
namespace {

namespace profiler = torch::autograd::profiler;

// Runs `body` under LibTorch's Kineto profiler (CPU events, and the device's activities on a
// CUDA device), the device drained before the profiler stops; the profiler's result.
std::unique_ptr<profiler::ProfilerResult> profile(const std::function<void()>& body,
                                                  const c10::Device& device) {
  using torch::profiler::impl::ActivityType;
  using torch::profiler::impl::ProfilerConfig;
  using torch::profiler::impl::ProfilerState;
  std::set<ActivityType> activities{ActivityType::CPU};
  if (device.is_cuda())
    activities.insert(ActivityType::CUDA);
  const ProfilerConfig config(ProfilerState::KINETO, /*report_input_shapes=*/true);
  auto drain = [&] {
#if OPBENCH_WITH_CUDA
    if (device.is_cuda())
      c10::cuda::getCurrentCUDAStream(device.index()).synchronize();
#endif
  };
  profiler::prepareProfiler(config, activities);
  profiler::enableProfiler(config, activities);
  std::unique_ptr<profiler::ProfilerResult> result;
  try {
    body();
    drain();
    result = profiler::disableProfiler();
  } catch (...) {
    result = profiler::disableProfiler();
    throw;
  }
  if (!result)
    throw Error("the profiler returned no result");
  return result;
}

} // namespace

void write_trace(const std::function<void()>& call, const c10::Device& device, int calls,
                 const std::string& path) {
  const auto result = profile(
      [&] {
        for (int i = 0; i < calls; ++i) {
          // Each call marked (a user annotation): where one ends and the next begins, for
          // Perfetto's reader and export --format breakdown alike.
          RECORD_USER_SCOPE(results::k_traced_call);
          call();
        }
      },
      device);
  result->save(path);
}

results::KernelTime profile_kernel_time(const std::function<void()>& call,
                                        const c10::Device& device, int calls) {
#if OPBENCH_WITH_CUDA
  if (!device.is_cuda())
    throw Error("kernel time: CUDA cases only");
  // A short spin on the timer's stream (the current one) first: its kernel names that stream
  // in the profiler's terms, which are not c10's.
  constexpr const char* k_marker = "spin_kernel";
  const auto result = profile(
      [&] {
        at::cuda::sleep(1000);
        for (int i = 0; i < calls; ++i)
          call();
      },
      device);
  std::vector<results::DeviceActivity> activities;
  std::int64_t timer_stream = -1;
  for (const auto& e : result->events()) {
    using libkineto::ActivityType;
    const auto type = static_cast<ActivityType>(e.activityType());
    results::DeviceActivity a;
    if (type == ActivityType::CONCURRENT_KERNEL)
      a.kind = results::DeviceActivity::Kind::kernel;
    else if (type == ActivityType::GPU_MEMCPY)
      a.kind = results::DeviceActivity::Kind::copy;
    else if (type == ActivityType::GPU_MEMSET)
      a.kind = results::DeviceActivity::Kind::set;
    else
      continue;
    a.name = e.name();
    a.stream = e.deviceResourceId();
    a.seconds = static_cast<double>(e.durationNs()) * 1e-9;
    if (timer_stream < 0 && a.kind == results::DeviceActivity::Kind::kernel &&
        a.name.find(k_marker) != std::string::npos) {
      timer_stream = a.stream;
      continue;
    }
    activities.push_back(std::move(a));
  }
  return results::kernel_time_of(activities, calls, timer_stream);
#else
  (void)call;
  (void)device;
  (void)calls;
  throw Error("kernel time: this opbench is built without CUDA");
#endif
}

} // namespace opbench::measure
