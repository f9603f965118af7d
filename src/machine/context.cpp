#include "opbench/machine/context.hpp"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/headeronly/version.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

#include "opbench/catalog/libraries.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/version.hpp"
#include "opbench/machine/device_state.hpp"
#include "opbench/machine/device_support.hpp"
#include "opbench/machine/devices.hpp"

namespace opbench::machine {
namespace {

// The first "key : value" line of /proc/cpuinfo whose key is `key`; "" when none.
std::string cpuinfo_value(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon != std::string::npos && core::trim(line.substr(0, colon)) == key)
      return core::trim(line.substr(colon + 1));
  }
  return "";
}

std::string cpu_model() {
  const std::string model = cpuinfo_value("model name");
  return model.empty() ? "unknown" : model;
}

// /proc/loadavg: the 1, 5 and 15 minute load averages and running/total scheduling entities.
void add_load(Json& ctx) {
  std::ifstream in("/proc/loadavg");
  double one = 0, five = 0, fifteen = 0;
  std::string procs;
  if (in >> one >> five >> fifteen >> procs) {
    ctx["load_average"] = {one, five, fifteen};
    ctx["procs_running"] = procs;
  }
  std::ifstream governor("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  std::string name;
  ctx["cpu_governor"] = (governor >> name) ? Json(name) : Json(nullptr);
}

// How many logical CPUs a sysfs CPU list names ("0-3,8,10-11": 7).
int count_cpu_list(const std::string& list) {
  int count = 0;
  for (const std::string& part : core::split(list, ',')) {
    const std::string range = core::trim(part);
    if (range.empty())
      continue;
    const auto dash = range.find('-');
    try {
      count += dash == std::string::npos
                   ? 1
                   : std::stoi(range.substr(dash + 1)) - std::stoi(range.substr(0, dash)) + 1;
    } catch (const std::exception&) {
      return 0;
    }
  }
  return count;
}

// cpu0's caches as the kernel lists them (/sys/devices/system/cpu/cpu0/cache/index*): type,
// level, size in bytes and the logical CPUs sharing each; empty where sysfs lists none.
Json cpu_caches() {
  Json caches = Json::array();
  for (int index = 0;; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream type_in(dir + "/type"), level_in(dir + "/level"), size_in(dir + "/size"),
        shared_in(dir + "/shared_cpu_list");
    std::string type, size, shared;
    int level = 0;
    if (!(type_in >> type) || !(level_in >> level) || !(size_in >> size))
      break;
    std::getline(shared_in, shared);
    std::int64_t bytes = 0;
    try {
      bytes = std::stoll(size);
    } catch (const std::exception&) {
      break;
    }
    const char unit = size.back();
    if (unit == 'K')
      bytes *= 1024;
    else if (unit == 'M')
      bytes *= 1024 * 1024;
    caches.push_back({{"type", type},
                      {"level", level},
                      {"size", bytes},
                      {"num_sharing", count_cpu_list(shared)}});
  }
  return caches;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0)
    return "unknown";
  return name;
}

} // namespace

std::string libtorch_version() {
  return TORCH_VERSION;
}

Json collect_context(const std::string& command_line, std::uint64_t seed,
                     const std::string& host_allocator, const std::vector<std::string>& devices) {
  Json ctx = Json::object();
  ctx["opbench_version"] = opbench::version();
  ctx["libtorch_version"] = libtorch_version();
  ctx["libtorch_cuda_compiled"] = static_cast<bool>(OPBENCH_TORCH_HAS_CUDA);
  ctx["cuda_device_count"] = cuda_device_count();
  ctx["mkl"] = at::hasMKL();
  ctx["mkldnn"] = at::hasMKLDNN();
  ctx["openmp"] = at::hasOpenMP();
  ctx["parallel_info"] = at::get_parallel_info();
  ctx["libtorch_build"] = at::show_config();
  ctx["host"] = host_name();
  ctx["cpu_model"] = cpu_model();
  ctx["logical_cores"] = std::thread::hardware_concurrency();
  const std::string mhz = cpuinfo_value("cpu MHz");
  ctx["cpu_mhz"] = mhz.empty() ? Json(nullptr) : Json(std::atof(mhz.c_str()));
  ctx["caches"] = cpu_caches();
  ctx["threads_default"] = libtorch_threads(); // LibTorch's, not opbench's default (1)
  ctx["host_allocator"] = host_allocator;
  ctx["date"] = core::utc_now();
  add_load(ctx);
  ctx["command_line"] = command_line;
  if (!catalog::loaded_libraries().empty()) {
    Json libraries = Json::array();
    for (const auto& library : catalog::loaded_libraries())
      libraries.push_back({{"path", library.path},
                           {"operators", library.operators},
                           {"overrides", library.overrides}});
    ctx["libraries"] = libraries;
  }
  ctx["seed"] = seed;
  Json cuda = Json::array();
  for (const auto& device : devices) {
    if (core::starts_with(device, "cuda:")) {
      Json entry = cuda_device_context(std::stoi(device.substr(5)));
      const std::string unread = device_states().unavailable();
      entry["device_state"] = unread.empty()
                                  ? "read through NVML at the start and end of each repetition"
                                  : "not read: " + unread;
      cuda.push_back(std::move(entry));
    }
  }
  if (!cuda.empty())
    ctx["cuda_devices"] = cuda;
  return ctx;
}

} // namespace opbench::machine
