#include "opbench/machine/device_state.hpp"

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <utility>

#include "opbench/machine/device_support.hpp"

#if OPBENCH_WITH_NVML_H
#include <nvml.h>
#endif

namespace opbench::machine {

#if OPBENCH_WITH_NVML_H
// results/device_state.hpp keeps NVML's bit values without its header: they must be NVML's.
static_assert(results::clock_reason::gpu_idle == nvmlClocksEventReasonGpuIdle);
static_assert(results::clock_reason::applications_clocks_setting ==
              nvmlClocksEventReasonApplicationsClocksSetting);
static_assert(results::clock_reason::sw_power_cap == nvmlClocksEventReasonSwPowerCap);
static_assert(results::clock_reason::hw_slowdown == nvmlClocksThrottleReasonHwSlowdown);
static_assert(results::clock_reason::sync_boost == nvmlClocksEventReasonSyncBoost);
static_assert(results::clock_reason::sw_thermal_slowdown == nvmlClocksEventReasonSwThermalSlowdown);
static_assert(results::clock_reason::hw_thermal_slowdown ==
              nvmlClocksThrottleReasonHwThermalSlowdown);
static_assert(results::clock_reason::hw_power_brake_slowdown ==
              nvmlClocksThrottleReasonHwPowerBrakeSlowdown);
static_assert(results::clock_reason::display_clock_setting ==
              nvmlClocksEventReasonDisplayClockSetting);

// The entry points opbench calls, resolved by name from the loaded library. The types are
// nvml.h's; the pointers are declared here, not taken with decltype, since some of the functions
// are marked deprecated in the header (their successors are tried first where a driver has them).
struct Nvml::Library {
  void* handle = nullptr;
  std::string unavailable;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*by_bus_id)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, nvmlClockType_t, unsigned int*) = nullptr;
  nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*temperature_v)(nvmlDevice_t, nvmlTemperature_t*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*lock)(nvmlDevice_t, unsigned int, unsigned int) = nullptr;
  nvmlReturn_t (*reset)(nvmlDevice_t) = nullptr;
  std::mutex mutex; // NVML is thread-safe; the device cache is not
  std::vector<std::pair<int, nvmlDevice_t>> devices;

  template <typename F> void resolve(F& into, const char* name) {
    into = reinterpret_cast<F>(dlsym(handle, name));
  }
  std::string error(nvmlReturn_t code) const {
    return std::string("NVML: ") + (error_string ? error_string(code) : "error") + " (" +
           std::to_string(static_cast<int>(code)) + ")";
  }
};

namespace {

// NVML's device for CUDA device `index`, looked up once.
bool device_of(Nvml::Library& nvml, const std::function<std::string(int)>& bus_id, int index,
               nvmlDevice_t& device) {
  for (const auto& [known, d] : nvml.devices) {
    if (known == index) {
      device = d;
      return true;
    }
  }
  const std::string id = bus_id ? bus_id(index) : std::string();
  if (id.empty() || nvml.by_bus_id(id.c_str(), &device) != NVML_SUCCESS)
    return false;
  nvml.devices.emplace_back(index, device);
  return true;
}

} // namespace

Nvml::Nvml(const std::string& library, std::function<std::string(int)> bus_id)
    : m_nvml(std::make_unique<Library>()), m_bus_id(std::move(bus_id)) {
  Library& n = *m_nvml;
  n.handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!n.handle) {
    const char* why = dlerror();
    n.unavailable = why ? why : library + ": cannot be loaded";
    return;
  }
  n.resolve(n.init, "nvmlInit_v2");
  n.resolve(n.shutdown, "nvmlShutdown");
  n.resolve(n.error_string, "nvmlErrorString");
  n.resolve(n.by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  n.resolve(n.clock, "nvmlDeviceGetClockInfo");
  n.resolve(n.reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!n.reasons)
    n.resolve(n.reasons, "nvmlDeviceGetCurrentClocksThrottleReasons"); // drivers before 535
  n.resolve(n.temperature_v, "nvmlDeviceGetTemperatureV");
  n.resolve(n.temperature, "nvmlDeviceGetTemperature");
  n.resolve(n.power, "nvmlDeviceGetPowerUsage");
  n.resolve(n.lock, "nvmlDeviceSetGpuLockedClocks");
  n.resolve(n.reset, "nvmlDeviceResetGpuLockedClocks");
  if (!n.init || !n.by_bus_id || !n.clock) {
    n.unavailable = library + " lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2 or "
                              "nvmlDeviceGetClockInfo";
  } else if (const nvmlReturn_t r = n.init(); r != NVML_SUCCESS) {
    n.unavailable = "nvmlInit_v2: " + n.error(r);
    n.shutdown = nullptr; // nothing to shut down
  } else {
    return;
  }
  dlclose(n.handle);
  n.handle = nullptr;
}

Nvml::~Nvml() {
  if (m_nvml->handle) {
    if (m_nvml->shutdown)
      m_nvml->shutdown();
    dlclose(m_nvml->handle);
  }
}

std::string Nvml::unavailable() const {
  return m_nvml->unavailable;
}

std::optional<results::DeviceState> Nvml::read(int cuda_index) {
  Library& n = *m_nvml;
  if (!n.handle)
    return std::nullopt;
  std::lock_guard<std::mutex> lock(n.mutex);
  nvmlDevice_t device{};
  if (!device_of(n, m_bus_id, cuda_index, device))
    return std::nullopt;
  const double none = std::numeric_limits<double>::quiet_NaN();
  results::DeviceState state;
  auto clock = [&](nvmlClockType_t type) {
    unsigned int mhz = 0;
    return n.clock(device, type, &mhz) == NVML_SUCCESS ? static_cast<double>(mhz) : none;
  };
  state.sm_clock_mhz = clock(NVML_CLOCK_SM);
  state.memory_clock_mhz = clock(NVML_CLOCK_MEM);
  unsigned long long reasons = 0;
  if (n.reasons && n.reasons(device, &reasons) == NVML_SUCCESS)
    state.reasons = reasons;
  state.temperature_c = none;
  nvmlTemperature_t t{};
  t.version = nvmlTemperature_v1;
  t.sensorType = NVML_TEMPERATURE_GPU;
  unsigned int celsius = 0;
  if (n.temperature_v && n.temperature_v(device, &t) == NVML_SUCCESS)
    state.temperature_c = t.temperature;
  else if (n.temperature && n.temperature(device, NVML_TEMPERATURE_GPU, &celsius) == NVML_SUCCESS)
    state.temperature_c = celsius;
  unsigned int milliwatts = 0;
  state.power_w =
      n.power && n.power(device, &milliwatts) == NVML_SUCCESS ? milliwatts / 1000.0 : none;
  return state;
}

ClockLock Nvml::lock_clocks(int cuda_index) {
  Library& n = *m_nvml;
  if (!n.handle)
    return {false, "not locked: " + n.unavailable};
  std::lock_guard<std::mutex> lock(n.mutex);
  nvmlDevice_t device{};
  if (!device_of(n, m_bus_id, cuda_index, device))
    return {false, "not locked: NVML has no device at CUDA device " + std::to_string(cuda_index) +
                       "'s PCI bus id"};
  if (!n.lock)
    return {false, "not locked: this driver's NVML has no nvmlDeviceSetGpuLockedClocks"};
  const auto base = static_cast<unsigned int>(NVML_CLOCK_LIMIT_ID_TDP);
  const nvmlReturn_t r = n.lock(device, base, base);
  if (r == NVML_SUCCESS)
    return {true, "SM clock locked at the base clock (NVML_CLOCK_LIMIT_ID_TDP)"};
  if (r == NVML_ERROR_NO_PERMISSION) {
    return {false, "not locked: " + n.error(r) +
                       " (locking clocks needs root, or the driver's permission for others)"};
  }
  return {false, "not locked: " + n.error(r)};
}

void Nvml::unlock_clocks(int cuda_index) {
  Library& n = *m_nvml;
  if (!n.handle || !n.reset)
    return;
  std::lock_guard<std::mutex> lock(n.mutex);
  nvmlDevice_t device{};
  if (device_of(n, m_bus_id, cuda_index, device))
    n.reset(device);
}

#else // built without nvml.h: nothing is read, and every reading says why.

struct Nvml::Library {};

Nvml::Nvml(const std::string&, std::function<std::string(int)> bus_id)
    : m_nvml(std::make_unique<Library>()), m_bus_id(std::move(bus_id)) {}
Nvml::~Nvml() = default;
std::string Nvml::unavailable() const {
  return "opbench was built without NVML's header (nvml.h; scripts/setup.sh installs it)";
}
std::optional<results::DeviceState> Nvml::read(int) {
  return std::nullopt;
}
ClockLock Nvml::lock_clocks(int) {
  return {false, "not locked: " + unavailable()};
}
void Nvml::unlock_clocks(int) {}

#endif

ClockLocks::ClockLocks(bool lock, Json& context, std::vector<std::string>& notes, Nvml& nvml)
    : m_nvml(nvml) {
  if (!context.contains("cuda_devices")) {
    if (lock)
      notes.push_back("--lock-clocks: the run has no CUDA device; nothing locked");
    return;
  }
  for (Json& device : context["cuda_devices"]) {
    const std::string name = device.value("device", "");
    const int index = std::atoi(name.substr(name.find(':') + 1).c_str());
    if (!lock) {
      device["clocks"] = "as the driver sets them (not locked; --lock-clocks locks them)";
      continue;
    }
    const ClockLock done = m_nvml.lock_clocks(index);
    device["clocks"] = done.said;
    notes.push_back(name + ": " + done.said);
    if (done.locked)
      m_locked.push_back(index);
  }
}

ClockLocks::~ClockLocks() {
  for (int index : m_locked)
    m_nvml.unlock_clocks(index);
}

Nvml& device_states() {
  static Nvml nvml("libnvidia-ml.so.1", cuda_pci_bus_id);
  return nvml;
}

} // namespace opbench::machine
