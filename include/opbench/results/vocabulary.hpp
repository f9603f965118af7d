#pragma once
// The small vocabularies of a case and its result, as enumerations with one name table each
// (core/names.hpp). The names are exactly what result files, case ids, the history and the
// command line say; strings appear only there (results/result_set.cpp, results/case.cpp, the CLI,
// history, reporters).

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "opbench/core/names.hpp"

namespace opbench::results {

// What a case runs: an operator the dispatcher knows, a long-tail sample, a whole model.
enum class Kind { op, sample, model };

// Which pass a case times: the forward call (no autograd recording); the backward pass alone over
// a retained graph; a training step, the forward under autograd and then its backward, as one
// timed call (docs/training.md).
enum class Direction { forward, backward, train };

// How the computation runs (stages/stages.hpp): ATen calls from C++; the case traced to a
// TorchScript graph, fusion off; that graph with a fuser; the eager calls as one CUDA graph; the
// trace compiled ahead of time by TorchInductor for its sizes; one trace of a sample run by one
// TorchScript function for every size, the fuser in its dynamic-shape mode (LongTail-Bench's S4);
// one Inductor package with symbolic sizes for every size of a sample (its S5). In a stage
// table's order (S1 S2 S3 S4 S5).
enum class Stage { eager, script, fused, graph, inductor, script_dynamic, inductor_dynamic };

// How a case ended: measured; failed (opbench's or the case's error: a bad argument, outputs
// that differ from eager's, a kernel that crashed its process); skipped for a reason that is no
// failure; a stage's compiler (the fuser, TorchScript's optimizer, AOTInductor) failed on it: the
// compiler's failure, named apart from opbench's errors, with one line in the result and its whole
// text in a file the line names; or it ran past the per-case limit (`run --case-timeout`) and its
// process was killed (run/child_runs.hpp).
enum class Status { ok, error, skipped, compiler_failed, timeout };

// How many cases ended each way. A failure is an error, a compiler's failure or a timeout: any of
// them fails a run (exit 1).
struct StatusCounts {
  std::size_t ok = 0, error = 0, skipped = 0, compiler_failed = 0, timeout = 0;
  void add(Status status) {
    (status == Status::ok                ? ok
     : status == Status::error           ? error
     : status == Status::skipped         ? skipped
     : status == Status::compiler_failed ? compiler_failed
                                         : timeout)++;
  }
  std::size_t failed() const { return error + compiler_failed + timeout; }
  std::size_t total() const { return ok + failed() + skipped; }
  // "9 ok, 1 error, 0 skipped" and ", N compiler failed", ", N timeout" when there are any.
  std::string text() const {
    return std::to_string(ok) + " ok, " + std::to_string(error) + " error, " +
           std::to_string(skipped) + " skipped" +
           (compiler_failed > 0 ? ", " + std::to_string(compiler_failed) + " compiler failed"
                                : "") +
           (timeout > 0 ? ", " + std::to_string(timeout) + " timeout" : "");
  }
};

// How opbench called the case (timing.call_path): the dispatcher's boxed call, the typed
// (unboxed) call as at::op makes it, autograd's backward, a training step (boxed forward under
// autograd, then its backward), a sample's body, a model's forward, or
// a stage's runner.
enum class CallPath {
  boxed,
  typed,
  gradient,
  train,
  sample,
  model,
  script,
  fused,
  graph,
  inductor
};

// What a case's samples time (timing.measures): the host clock around back-to-back calls (CPU);
// the host clock with a synchronize per block (--timer host); a call's host time (CUDA calls that
// launch no device work); the device's time per call, launch hidden (CUDA-graph replays, or one
// eager call behind the launch gate where each call is timed alone); back-to-back eager launches
// timed with events.
enum class Measures { host, host_sync, cpu, gpu, batch };

// Which clock took a case's samples (timing.timer): the host's steady clock alone (CPU cases); the
// host clock with a device synchronize before each start and after each stop (--timer host), or
// before the start only; CUDA events on the case's stream.
enum class Timer { steady_clock, host_sync, host_launch, cuda_event };

// What a case's interval saw differ (estimate.interval.basis, results::interval_of): the fastest
// repetitions of its measuring processes, or its repetitions (all from one process, or unknown).
enum class IntervalBasis { processes, repetitions };

// Why a case's interval is wider than the run-to-run allowance (estimate.interval.wide,
// results::interval_of): its repetitions fall into two levels; its processes' fastest repetitions
// move one way, process after process; its processes (or, on a repetitions basis, its
// repetitions) disagree with no such pattern; the run's processes disagree on most cases (the
// run's allowance, not the case, made it wide: a noisy hour).
enum class WideReason {
  none,
  bimodal,
  drifting,
  processes_disagree,
  repetitions_disagree,
  noisy_run
};

// JSON holds a vocabulary's name, never its number: nlohmann finds this by argument-dependent
// lookup, so `json = status` writes "ok". Readers parse names with core::parse_name_or_throw,
// which names the file and the field (results/case.cpp, results/result_set.cpp).
template <typename BasicJson, typename E, typename = decltype(core::NameTable<E>::k_names)>
void to_json(BasicJson& json, E value) {
  json = core::name_of(value);
}

} // namespace opbench::results

namespace opbench::core {

template <> struct NameTable<results::Kind> {
  static constexpr std::pair<results::Kind, std::string_view> k_names[] = {
      {results::Kind::op, "op"},
      {results::Kind::sample, "sample"},
      {results::Kind::model, "model"}};
};

template <> struct NameTable<results::Direction> {
  static constexpr std::pair<results::Direction, std::string_view> k_names[] = {
      {results::Direction::forward, "forward"},
      {results::Direction::backward, "backward"},
      {results::Direction::train, "train"}};
};

template <> struct NameTable<results::Stage> {
  static constexpr std::pair<results::Stage, std::string_view> k_names[] = {
      {results::Stage::eager, "eager"},
      {results::Stage::script, "script"},
      {results::Stage::fused, "fused"},
      {results::Stage::graph, "graph"},
      {results::Stage::inductor, "inductor"},
      {results::Stage::script_dynamic, "script-dynamic"},
      {results::Stage::inductor_dynamic, "inductor-dynamic"}};
};

template <> struct NameTable<results::Status> {
  static constexpr std::pair<results::Status, std::string_view> k_names[] = {
      {results::Status::ok, "ok"},
      {results::Status::error, "error"},
      {results::Status::skipped, "skipped"},
      {results::Status::compiler_failed, "compiler failed"},
      {results::Status::timeout, "timeout"}};
};

template <> struct NameTable<results::CallPath> {
  static constexpr std::pair<results::CallPath, std::string_view> k_names[] = {
      {results::CallPath::boxed, "boxed"},       {results::CallPath::typed, "typed"},
      {results::CallPath::gradient, "gradient"}, {results::CallPath::train, "train"},
      {results::CallPath::sample, "sample"},     {results::CallPath::model, "model"},
      {results::CallPath::script, "script"},     {results::CallPath::fused, "fused"},
      {results::CallPath::graph, "graph"},       {results::CallPath::inductor, "inductor"}};
};

template <> struct NameTable<results::Measures> {
  static constexpr std::pair<results::Measures, std::string_view> k_names[] = {
      {results::Measures::host, "host"},
      {results::Measures::host_sync, "host_sync"},
      {results::Measures::cpu, "cpu"},
      {results::Measures::gpu, "gpu"},
      {results::Measures::batch, "batch"}};
};

template <> struct NameTable<results::Timer> {
  static constexpr std::pair<results::Timer, std::string_view> k_names[] = {
      {results::Timer::steady_clock, "steady_clock"},
      {results::Timer::host_sync, "host_sync"},
      {results::Timer::host_launch, "host_launch"},
      {results::Timer::cuda_event, "cuda_event"}};
};

template <> struct NameTable<results::IntervalBasis> {
  static constexpr std::pair<results::IntervalBasis, std::string_view> k_names[] = {
      {results::IntervalBasis::processes, "processes"},
      {results::IntervalBasis::repetitions, "repetitions"}};
};

template <> struct NameTable<results::WideReason> {
  static constexpr std::pair<results::WideReason, std::string_view> k_names[] = {
      {results::WideReason::none, "none"},
      {results::WideReason::bimodal, "bimodal"},
      {results::WideReason::drifting, "drifting"},
      {results::WideReason::processes_disagree, "processes disagree"},
      {results::WideReason::repetitions_disagree, "repetitions disagree"},
      {results::WideReason::noisy_run, "noisy run"}};
};

} // namespace opbench::core
