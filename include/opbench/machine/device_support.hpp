#pragma once
// What the devices can do, without LibTorch in the header: whether CUDA code is built in, how
// many CUDA devices are visible, their description, cache sizes for cold runs.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "opbench/core/json.hpp"

namespace opbench::machine {

// True when opbench's CUDA code (event timer, graphs, device statistics) is compiled in; it is
// exactly when the LibTorch it is built against has CUDA.
bool cuda_compiled();

// True when the LibTorch loaded at run time has CUDA kernels registered (aten::add has one).
bool libtorch_has_cuda_kernels();

// CUDA devices visible now; 0 without CUDA.
int cuda_device_count();

// Name, SM count, memory, L2 size, clock rates, driver and runtime versions, cuDNN version and
// the TF32 / cuDNN flags of CUDA device `index`. Throws DeviceError without CUDA.
Json cuda_device_context(int index);

// CUDA device `index`'s PCI bus id as the CUDA runtime writes it ("0000:3b:00.0"; NVML finds its
// device by it); empty without CUDA or when the runtime does not say.
std::string cuda_pci_bus_id(int index);

// Bytes a cold run overwrites before each timed call: the device's L2 for "cuda:N", the
// last-level cache for "cpu".
std::int64_t flush_bytes(const std::string& device);

// One instance of the CPU's last-level cache, as the kernel lists it for cpu0 (sysfs), else as
// glibc says, else 32 MiB.
std::int64_t last_level_cache_bytes();

// The CPU's data caches as the kernel lists them for cpu0 (sysfs: data and unified ones, one
// instance each), smallest level first: {"L1d", 49152}, {"L2", 2097152}, {"L3", ...}. Empty where
// the kernel lists none.
std::vector<std::pair<std::string, std::int64_t>> cpu_data_caches();

// The data caches a hierarchical roofline judges `device`'s cases against, smallest level first:
// cpu_data_caches() for "cpu"; for "cuda:N" its L2, as the device reports it ({"L2", 52428800} on
// an H100). Throws DeviceError for a CUDA device in an opbench built without CUDA.
std::vector<std::pair<std::string, std::int64_t>> data_caches(const std::string& device);

// LibTorch's intra-op thread count at this process's first call, kept (the number of physical
// cores: `run` and `calibrate` ask while they plan and collect the context, before any case
// sets the count).
int libtorch_threads();

// The intra-op threads a case runs on when none are asked for: one, as torch.utils.benchmark's
// Timer does. One thread's time is the operator's own; on a shared host how fast two threads run
// depends on where the host puts the guest's vCPUs (docs/reproducibility.md).
int default_threads();

// Throws DeviceError when `device` ("cpu", "cuda:N") cannot run here, saying why.
void check_device(const std::string& device);

} // namespace opbench::machine
