#pragma once
// Canonical dtype and device names (results::Case) to LibTorch's c10 values and back. What the
// devices can do, without LibTorch: device_support.hpp.

#include <ATen/ATen.h>

#include <string>

namespace opbench::machine {

// The c10 dtype of a canonical dtype name.
at::ScalarType scalar_type(const std::string& canonical);
// The canonical name of a c10 dtype; "" for one opbench has no name for.
std::string dtype_name(at::ScalarType type);

// The c10 device of a canonical device name ("cpu", "cuda:0").
at::Device device_of(const std::string& canonical);

} // namespace opbench::machine
