#pragma once
// A CUDA device's state, read through NVML (the driver's management library), which is loaded
// at run time (dlopen of libnvidia-ml.so.1): a build, a CPU machine or a driver without it needs
// nothing, and every read then says why it has no value. What the readings mean and how a run
// uses them: results/device_state.hpp, docs/cuda.md ("The device's state").

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/results/device_state.hpp"

namespace opbench::machine {

// What reads a device's state; the driver (measure/) asks the process's (device_states()), tests
// give fakes.
class DeviceStateSource {
public:
  virtual ~DeviceStateSource() = default;
  // CUDA device `cuda_index`'s state now (a value NVML does not give for that device is NaN);
  // nullopt when nothing can be read (unavailable() says why).
  virtual std::optional<results::DeviceState> read(int cuda_index) = 0;
  // Why nothing is read, in one line ("libnvidia-ml.so.1: cannot open shared object file: ...");
  // empty while it reads.
  virtual std::string unavailable() const = 0;
};

// What --lock-clocks did on one device.
struct ClockLock {
  bool locked = false;
  // "SM clock locked at the base clock (NVML_CLOCK_LIMIT_ID_TDP)", or "not locked: NVML:
  // Insufficient Permissions (locking needs root or the driver's permission)".
  std::string said;
};

// NVML from the library at `library` (the driver's "libnvidia-ml.so.1"; tests load a fake),
// initialised once; `bus_id` gives a CUDA device's PCI bus id ("00000000:3B:00.0"), through which
// NVML's device is found (NVML's order of devices is not CUDA's).
class Nvml : public DeviceStateSource {
public:
  Nvml(const std::string& library, std::function<std::string(int)> bus_id);
  ~Nvml() override;
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  std::optional<results::DeviceState> read(int cuda_index) override;
  std::string unavailable() const override;

  // Locks device `cuda_index`'s SM clock at its base clock, as nvbench's --lock-clocks base does
  // (a clock the device holds under load, so that a run is not timed at whatever boost it
  // reaches); the driver allows it to root only, unless set otherwise. unlock_clocks puts the
  // driver's own control back (nvidia-smi --reset-gpu-clocks does the same after a crash).
  ClockLock lock_clocks(int cuda_index);
  void unlock_clocks(int cuda_index);

  struct Library;

private:
  std::unique_ptr<Library> m_nvml;
  std::function<std::string(int)> m_bus_id;
};

// The process's reader: NVML from the driver, CUDA devices by their PCI bus ids; made on first
// use. Never throws.
Nvml& device_states();

// A run's CUDA devices' clocks (`run --lock-clocks`): with `lock`, each device of the context's
// cuda_devices is locked at its base clock through `nvml` until this is destroyed; each entry gets
// "clocks", what was done or why not ("as the driver sets them (not locked; ...)" without
// `lock`), and `notes` a line a device for the console.
class ClockLocks {
public:
  ClockLocks(bool lock, Json& context, std::vector<std::string>& notes,
             Nvml& nvml = device_states());
  ~ClockLocks();
  ClockLocks(const ClockLocks&) = delete;
  ClockLocks& operator=(const ClockLocks&) = delete;

private:
  Nvml& m_nvml;
  std::vector<int> m_locked;
};

} // namespace opbench::machine
