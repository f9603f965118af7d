#pragma once
// A Chrome/Perfetto trace of a few calls of a case (`opbench run --trace DIR`), taken with
// LibTorch's Kineto profiler outside every timed loop: ATen operator events on the CPU always
// (with input shapes), and the CUDA kernels and runtime calls when the case runs on a GPU.
// Internal to measure/: the driver writes it after the case's timing.

#include <functional>
#include <string>

#include <c10/core/Device.h>

namespace opbench::measure {

// Profiles `calls` calls of `call` on `device`, each inside a user annotation named
// results::k_traced_call, and writes the trace to `path` (JSON, the trace-event format
// chrome://tracing and ui.perfetto.dev open). Throws ExecError on failure.
void write_trace(const std::function<void()>& call, const c10::Device& device, int calls,
                 const std::string& path);

} // namespace opbench::measure
