#pragma once
// Exact allocation figures of one call, from LibTorch's thread-local allocation reporter
// (c10::MemoryReportingInfoBase installed with c10::DebugInfoGuard). It sees every allocation of
// the calling thread through LibTorch's allocators, CPU and CUDA alike.

#include <functional>

#include "opbench/results/result_set.hpp"

namespace opbench::exec {

// Runs `call` once under the reporter; peak is relative to the live bytes before the call.
results::MemoryStats probe_memory(const std::function<void()>& call);

} // namespace opbench::exec
