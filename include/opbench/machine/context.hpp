#pragma once
// The context every result carries: versions, build, host, CPU, threads, date, command line,
// the operator libraries loaded (`libraries`: path and the operators each registered).

#include <cstdint>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"

namespace opbench::machine {

// `devices`: the devices the run uses; each CUDA one is described in "cuda_devices".
Json collect_context(const std::string& command_line, std::uint64_t seed,
                     const std::string& host_allocator,
                     const std::vector<std::string>& devices = {});

// LibTorch's version, "2.15.0".
std::string libtorch_version();

} // namespace opbench::machine
