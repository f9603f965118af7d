#pragma once
// The context every result carries: versions, build, host, CPU, threads, date, command line.

#include <cstdint>
#include <string>

#include "opbench/core/json.hpp"

namespace opbench::exec {

Json collect_context(const std::string& command_line, std::uint64_t seed,
                     const std::string& host_allocator);

// LibTorch's version, "2.15.0".
std::string libtorch_version();

}  // namespace opbench::exec
