#include "trace.hpp"

#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <set>

#include "opbench/core/error.hpp"
#include "opbench/results/trace_marks.hpp"

#if OPBENCH_WITH_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

namespace opbench::measure {

void write_trace(const std::function<void()>& call, const c10::Device& device, int calls,
                 const std::string& path) {
  namespace profiler = torch::autograd::profiler;
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
    for (int i = 0; i < calls; ++i) {
      // Each call marked (a user annotation): where one ends and the next begins, for
      // Perfetto's reader and export --format breakdown alike.
      RECORD_USER_SCOPE(results::k_traced_call);
      call();
    }
    drain();
    result = profiler::disableProfiler();
  } catch (...) {
    result = profiler::disableProfiler();
    throw;
  }
  if (!result)
    throw Error(path + ": the profiler returned no trace");
  result->save(path);
}

} // namespace opbench::measure
