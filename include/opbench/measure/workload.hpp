#pragma once
// One case interface. Whatever a case is (an operator, a long-tail sample, a whole TorchScript
// model, a compiled stage; forward or the gradients of any of them), its maker (exec/, stages/)
// turns it into a Workload; the one driver (src/measure/driver.cpp) times it, records its ATen
// calls and work, and probes its memory the same way for all of them. The rest of opbench runs
// cases through exec/executor.hpp's run_case.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "opbench/measure/options.hpp"
#include "opbench/results/case.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::measure {

// Puts the inputs that a call writes and reads again (an in-place operator's `self`) back to the
// values they were made with. Before every timed call, so that each starts from the case's
// configured inputs instead of from whatever earlier calls left: `exp_` repeated on its own output
// turns a normal tensor into infinities within five calls, and ATen's exp runs 2.7x slower on
// them.
struct Restore {
  std::function<void()> run;          // empty: the call writes no input it reads
  std::vector<std::string> arguments; // the schema names of what `run` puts back
  void operator()() const {
    if (run)
      run();
  }
};

struct Workload {
  // One call. Its outputs stay alive until the next call, as in a plain `out = f(x)` loop.
  std::function<void()> call;
  // `call` n times back to back, the loop inside (measure.hpp's measure_repeated: the timed
  // block reaches the call through one std::function, not one a call). Empty: the driver loops
  // over `call`. Only where the per-call cost shows: operator calls.
  std::function<void(std::int64_t)> repeat;
  // Drops what `call` keeps (before the memory probe, which then sees one call's own peak).
  std::function<void()> release = [] {};
  // How `call` reaches LibTorch: "typed", "boxed" (typed_call.hpp), "sample", "model", "gradient".
  results::CallPath call_path = results::CallPath::boxed;
  // Why a CUDA graph must not capture `call` ("" when a capture may be tried; a capture that
  // fails falls back too, with LibTorch's reason).
  std::string not_capturable;
  // Grad mode while the driver runs `call` (on for gradients, off for everything else).
  bool grad_mode = false;
  // Whether the driver records the ATen calls of one call for their count and work. Gradients
  // are not recorded: the autograd engine runs them on its own threads on CUDA.
  bool recordable = true;
  // A stage other than eager (stages.hpp): the eager call whose ATen calls give the case's work
  // and host syncs (the same computation; a fused kernel is no ATen call the cost rules know),
  // while `call`'s own calls give the ATen-call count. Empty: `call` gives both.
  std::function<void()> work_call;
  // The call whose ATen calls are the case's work: `work_call`, else `call`.
  const std::function<void()>& eager_call() const { return work_call ? work_call : call; }
  // Bytes of the call's tensor inputs (every tensor argument, tensor lists included): from
  // canary.hpp's memory_bound_bytes on, the memory canary brackets its CPU repetitions.
  std::int64_t input_bytes = 0;
  // Puts back the inputs that `call` writes and reads again (see Restore). With one, the driver
  // times one call at a time, each after its restore (untimed), as cold mode times each after
  // its flush.
  Restore restore;
  // Training steps (gradients.hpp): runs the forward alone and returns the bytes it leaves held
  // for backward (results::MemoryStats::kept_for_backward_bytes). Empty for every other case.
  std::function<std::int64_t()> kept_for_backward;
  // What a stage other than eager reports (results::StageInfo).
  std::optional<results::StageInfo> stage_info;
  // A variant group's implementation: its check against the baseline before the timing
  // (results::OutputCheck), and the check after it (on the timed tensors, refilled with fresh
  // values), which adds to the record; empty for every other case.
  std::optional<results::OutputCheck> check;
  std::function<void(results::OutputCheck&)> check_after;
  // What the callables above share (inputs, outputs, the module): kept alive with them.
  std::shared_ptr<void> state;
};

// Bytes of the tensors in `values` (tensors, tensor lists, optional tensors, tuples).
std::int64_t tensor_bytes(const std::vector<c10::IValue>& values);
std::int64_t tensor_bytes(const std::vector<at::Tensor>& tensors);

// Thrown by a maker when the case cannot run for a reason that is no failure: status "skipped".
struct SkipCase : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown by make_workload when a variant group's implementation returns other outputs than its
// baseline before it is timed: status "error", with the check's record.
struct CheckFailed : std::runtime_error {
  explicit CheckFailed(results::OutputCheck record)
      : std::runtime_error(record.failed), check(std::move(record)) {}
  results::OutputCheck check;
};

// Thrown by a stage when its compiler fails on the case (results::Status::compiler_failed):
// what() is one line, `full` the compiler's whole text (its trace), which exec/executor.cpp keeps
// in a file (compiler_text_file) and names.
struct CompilerFailed : std::runtime_error {
  CompilerFailed(const std::string& line, std::string full_text)
      : std::runtime_error(line), full(std::move(full_text)) {}
  std::string full;
};

// Times, records and probes `workload` into `result` (results/result_set.hpp says what each field
// is).
void drive(const results::Case& c, const ExecOptions& options, Workload& workload,
           results::CaseResult& result);

} // namespace opbench::measure
