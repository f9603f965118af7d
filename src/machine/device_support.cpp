#include "opbench/machine/device_support.hpp"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>

#if OPBENCH_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <cuda_runtime_api.h>
#endif

#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/machine/devices.hpp"

namespace opbench::machine {

bool cuda_compiled() {
  return OPBENCH_WITH_CUDA != 0;
}

bool libtorch_has_cuda_kernels() {
  const auto op = c10::Dispatcher::singleton().findSchema({"aten::add", "Tensor"});
  return op && op->hasKernelForDispatchKey(c10::DispatchKey::CUDA);
}

int cuda_device_count() {
#if OPBENCH_WITH_CUDA
  return static_cast<int>(at::getNumGPUs());
#else
  return 0;
#endif
}

Json cuda_device_context(int index) {
#if OPBENCH_WITH_CUDA
  const auto device = static_cast<c10::DeviceIndex>(index);
  const cudaDeviceProp* prop = at::cuda::getDeviceProperties(device);
  auto attribute = [&](cudaDeviceAttr attr) {
    int value = 0;
    return cudaDeviceGetAttribute(&value, attr, index) == cudaSuccess ? value : -1;
  };
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  Json ctx = Json::object();
  ctx["device"] = "cuda:" + std::to_string(index);
  ctx["name"] = prop->name;
  ctx["compute_capability"] = std::to_string(prop->major) + "." + std::to_string(prop->minor);
  ctx["sm_count"] = prop->multiProcessorCount;
  ctx["memory_bytes"] = static_cast<std::int64_t>(prop->totalGlobalMem);
  ctx["l2_cache_bytes"] = prop->l2CacheSize;
  ctx["clock_rate_khz"] = attribute(cudaDevAttrClockRate);
  ctx["memory_clock_rate_khz"] = attribute(cudaDevAttrMemoryClockRate);
  ctx["memory_bus_width_bits"] = attribute(cudaDevAttrGlobalMemoryBusWidth);
  ctx["driver_version"] = driver;
  ctx["runtime_version"] = runtime;
  ctx["cudnn_version"] = at::detail::getCUDAHooks().versionCuDNN();
  const auto& g = at::globalContext();
  ctx["tf32_cublas"] = g.allowTF32CuBLAS();
  ctx["tf32_cudnn"] = g.allowTF32CuDNN();
  ctx["cudnn_benchmark"] = g.benchmarkCuDNN();
  ctx["cudnn_deterministic"] = g.deterministicCuDNN();
  return ctx;
#else
  throw DeviceError("cuda:" + std::to_string(index) + ": this opbench is built without CUDA");
#endif
}

std::string cuda_pci_bus_id(int index) {
#if OPBENCH_WITH_CUDA
  char id[32] = {};
  if (cudaDeviceGetPCIBusId(id, sizeof id, index) == cudaSuccess)
    return id;
  cudaGetLastError(); // the failed call's error is not the next call's
#else
  (void)index;
#endif
  return "";
}

std::int64_t flush_bytes(const std::string& device) {
#if OPBENCH_WITH_CUDA
  if (core::starts_with(device, "cuda")) {
    const at::Device d(device);
    return at::cuda::getDeviceProperties(d.index())->l2CacheSize;
  }
#endif
  if (core::starts_with(device, "cuda")) {
    throw DeviceError(device + ": this opbench is built without CUDA");
  }
  return last_level_cache_bytes();
}

namespace {

// "48K" -> 49152; 0 when unreadable.
long cache_size_bytes(const std::string& text) {
  if (text.empty())
    return 0;
  long value = std::atol(text.c_str());
  if (text.back() == 'K')
    value *= 1024;
  if (text.back() == 'M')
    value *= 1024 * 1024;
  return value;
}

} // namespace

std::vector<std::pair<std::string, std::int64_t>> cpu_data_caches() {
  std::vector<std::pair<int, std::int64_t>> found;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i);
    std::ifstream level_in(dir + "/level"), type_in(dir + "/type"), size_in(dir + "/size");
    int level = 0;
    std::string type, text;
    if (!(level_in >> level) || !(type_in >> type) || !(size_in >> text) || type == "Instruction")
      continue;
    if (const long bytes = cache_size_bytes(text); bytes > 0)
      found.emplace_back(level, bytes);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const auto& [level, bytes] : found) {
    std::string name = "L";
    name += std::to_string(level);
    if (level == 1)
      name += 'd';
    out.emplace_back(std::move(name), bytes);
  }
  return out;
}

std::vector<std::pair<std::string, std::int64_t>> data_caches(const std::string& device) {
  if (!core::starts_with(device, "cuda"))
    return cpu_data_caches();
  return {{"L2", flush_bytes(device)}}; // flush_bytes: the device's L2, or DeviceError
}

std::int64_t last_level_cache_bytes() {
  // The kernel's list first: one instance of the highest level (e.g. "32768K" for one CCD's L3).
  // glibc's sysconf reads CPUID, which a guest on AMD may see as the whole host's L3 (here 320 MiB
  // on a 2-core guest whose kernel lists 32 MiB).
  long bytes = -1;
  int best_level = -1;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i);
    std::ifstream level_in(dir + "/level"), size_in(dir + "/size");
    int level = 0;
    std::string text;
    if (!(level_in >> level) || !(size_in >> text) || text.empty())
      continue;
    const long value = cache_size_bytes(text);
    if (level > best_level || (level == best_level && value > bytes)) {
      best_level = level;
      bytes = value;
    }
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (bytes <= 0)
    bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (bytes <= 0)
    bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  return bytes > 0 ? bytes : 32LL * 1024 * 1024;
}

int libtorch_threads() {
  // The first answer is kept: a case sets the count (run_case), and later calls would see its.
  static const int k_threads = at::get_num_threads();
  return k_threads;
}

int default_threads() {
  return 1;
}

void check_device(const std::string& device) {
  const at::Device d = device_of(device);
  if (d.is_cpu())
    return;
  if (!d.is_cuda())
    throw DeviceError("device " + device + " is not supported (valid: cpu, gpuN, cuda:N)");
  if (!cuda_compiled()) {
    throw DeviceError("device " + device +
                      " is not available: this opbench is built against a LibTorch without CUDA");
  }
  const int visible = cuda_device_count();
  if (d.index() >= visible) {
    throw DeviceError("device " + device + " is not available: LibTorch is built with CUDA and " +
                      std::to_string(visible) + " CUDA device(s) are visible");
  }
}

} // namespace opbench::machine
