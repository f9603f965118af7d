#pragma once
// LibTorch's Kineto profiler, outside every timed loop, for two things: a Chrome/Perfetto trace
// of a few calls of a case (`opbench run --trace DIR`: ATen operator events on the CPU always,
// with input shapes, and the CUDA kernels and runtime calls when the case runs on a GPU), and
// the kernels' device time of a CUDA case's calls (`run --kernel-time`). Internal to measure/:
// the driver takes both after the case's timing.

#include <functional>
#include <string>

#include <c10/core/Device.h>

#include "opbench/results/kernel_time.hpp"

namespace opbench::measure {

// Profiles `calls` calls of `call` on `device`, each inside a user annotation named
// results::k_traced_call, and writes the trace to `path` (JSON, the trace-event format
// chrome://tracing and ui.perfetto.dev open). Throws ExecError on failure.
void write_trace(const std::function<void()>& call, const c10::Device& device, int calls,
                 const std::string& path);

// Profiles `calls` calls of `call` on CUDA device `device` after a marker kernel on the current
// stream (the one the event timer records on): the kernels' and copies' device time and counts
// per call, and those on another stream (results::kernel_time_of). Throws Error off CUDA.
results::KernelTime profile_kernel_time(const std::function<void()>& call,
                                        const c10::Device& device, int calls);

} // namespace opbench::measure
