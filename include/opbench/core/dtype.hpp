#pragma once
// Names of dtypes and devices as users write them, without LibTorch.

#include <string>
#include <vector>

namespace opbench::core {

// Canonical dtype names opbench accepts: float32, float16, bfloat16, float64, int8, uint8, int16,
// int32, int64, bool, complex64, complex128.
const std::vector<std::string>& dtype_names();

// Canonical name of a dtype spelling (`float`, `fp32`, `torch.float32`, `half`, `long`, ...);
// throws UsageError listing the valid names when it is none.
std::string canonical_dtype(const std::string& name);

// True for float16, bfloat16, float32, float64.
bool is_floating_dtype(const std::string& canonical);

// A device as the command line spells it: `cpu`, `gpuN` or `cuda:N`; canonical form `cpu`/`cuda:N`.
struct DeviceSpec {
  std::string type; // "cpu" or "cuda"
  int index = 0;    // CUDA device index; 0 for cpu
  std::string str() const;
};

// Parses `cpu`, `gpu0`, `cuda`, `cuda:1`; throws UsageError otherwise.
DeviceSpec parse_device(const std::string& text);

} // namespace opbench::core
