#pragma once
// Exact allocation figures of one call, from LibTorch's thread-local allocation reporter
// (c10::MemoryReportingInfoBase installed with c10::DebugInfoGuard). It sees every allocation of
// the calling thread through LibTorch's allocators, CPU and CUDA alike.

#include <cstdint>
#include <functional>

#include "opbench/results/result_set.hpp"

namespace opbench::measure {

// Runs `call` once under the reporter; peak is relative to the live bytes before the call.
results::MemoryStats probe_memory(const std::function<void()>& call);

// Runs `call` once under the reporter: the bytes it allocated and had not freed when it returned
// (what it leaves held; a training step's forward: its outputs and what autograd saved).
std::int64_t held_bytes(const std::function<void()>& call);

} // namespace opbench::measure
