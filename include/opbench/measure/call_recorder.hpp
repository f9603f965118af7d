#pragma once
// The call recorder: the one place that watches the ATen calls a piece of code makes (a thread-
// local RecordFunction callback, inputs and outputs captured). Only top-level calls are recorded
// (those an operator makes inside itself are its own business, as in `opbench extract`); host
// synchronisations are noted at any depth (a boolean-mask index synchronises inside `index`).
// Users: the ATen-call count of a case, the work (FLOPs, bytes) of samples and models, `opbench
// extract`'s configs, and the sample tests' device and synchronisation checks.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/cost/cost.hpp"

namespace opbench::measure {

struct RecordOptions {
  // Integer and non-negative floating tensors get their value range in `args` (config form for
  // `opbench extract`); costs a reduction per tensor, so off unless asked.
  bool value_ranges = false;
};

// One top-level ATen call.
struct RecordedCall {
  std::string op;             // "aten::conv2d", "aten::add.Tensor"
  Json args = Json::object(); // config values by schema argument name (tensors as specs)
  std::string unsupported;    // an argument with no config form ("" when none)
  cost::CallShapes shapes;    // tensor inputs and non-aliasing outputs, for the cost rules
  // A factory call (a `device` argument and no tensor argument) that was given no device: its
  // tensor lands on the default device (the CPU) whatever device the code's inputs are on.
  bool default_device = false;
};

// A call that makes the host wait for the device (`.item()`, `nonzero`, a boolean mask, ...),
// at any depth, with the storage of its first tensor input (to tell which tensor was read).
struct HostSync {
  std::string op;
  const void* storage = nullptr;
  bool on_cpu = true; // that tensor is on the CPU (reading it waits for no device)
};

struct Recording {
  std::vector<RecordedCall> calls;
  std::vector<HostSync> syncs;
  // Calls that draw from a random generator (rand*, normal, bernoulli, dropout, ...), at any depth.
  std::vector<std::string> random;
};

// Runs `code` once under the recorder.
Recording record_aten_calls(const std::function<void()>& code, const RecordOptions& options = {});

// Top-level ATen calls of one run of `code`.
std::int64_t count_aten_calls(const std::function<void()>& code);

// The work of everything `calls` did: bytes summed over the calls (each call's lower bound),
// FLOPs summed only when every call has a rule (else absent: never guessed).
cost::Cost work_of(const std::vector<RecordedCall>& calls);

} // namespace opbench::measure
