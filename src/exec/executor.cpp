#include "opbench/exec/executor.hpp"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>

#include <chrono>
#include <optional>

#if OPBENCH_WITH_CUDA
#include <c10/cuda/CUDAGuard.h>
#endif

#include "makers.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/log.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/exec/inputs.hpp"
#include "opbench/machine/device_support.hpp"
#include "opbench/machine/devices.hpp"
#include "opbench/measure/holding.hpp"
#include "opbench/stages/cache_dir.hpp"

namespace opbench::exec {

using measure::Phase;

using machine::device_of;
using measure::CheckFailed;
using measure::CompilerFailed;
using measure::drive;
using measure::ExecOptions;
using measure::hold_phase;
using measure::record_aten_calls;
using measure::Recording;
using measure::RecordOptions;
using measure::seconds_since;
using measure::SkipCase;
using measure::Workload;
using stages::keep_compiler_text;

void run_forward_prepared(const results::Case& c, PreparedCall& call, const ExecOptions& options,
                          results::CaseResult& result) {
  Workload w = operator_workload(call);
  drive(c, options, w, result);
}

std::int64_t placement_padding(std::uint64_t seed, int repetition) {
  // splitmix64 of (seed, repetition): a fixed, well-mixed draw, the same on every platform.
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(repetition + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  constexpr std::uint64_t k_steps = (64 * 1024) / 64;
  return static_cast<std::int64_t>((z % k_steps) * 64);
}

namespace {

// While it lives: the case's intra-op threads, and on CUDA its device the current one.
struct CaseScope {
  explicit CaseScope(const results::Case& c) {
    at::set_num_threads(c.threads);
#if OPBENCH_WITH_CUDA
    if (device_of(c.device).is_cuda())
      guard.emplace(device_of(c.device));
#endif
  }
#if OPBENCH_WITH_CUDA
  std::optional<c10::cuda::CUDAGuard> guard;
#endif
};

} // namespace

results::CaseResult run_case(const results::Case& c, const ExecOptions& options) {
  results::CaseResult result;
  result.c = c;
  result.timing.target_noise = options.measure.target_noise;
  if (!c.skip_reason.empty()) {
    result.status = results::Status::skipped;
    result.message = c.skip_reason;
    return result;
  }
  // A result with nothing of a failed attempt in it.
  auto cleared = [&] {
    results::CaseResult fresh;
    fresh.c = c;
    fresh.timing.target_noise = options.measure.target_noise;
    return fresh;
  };
  try {
    const CaseScope scope(c);
    // Held until the case ends, so the inputs and outputs made after it sit past it.
    const at::Tensor padding =
        at::empty({placement_padding(c.seed, options.repetition) + 1},
                  at::TensorOptions().dtype(at::kByte).device(device_of(c.device)));
    result.timing.placement_padding = padding.numel() - 1;
    const auto start = std::chrono::steady_clock::now();
    hold_phase(Phase::inputs);
    Workload workload = make_workload(c, options.repetition == 0);
    result.timing.spent.inputs = seconds_since(start);
    drive(c, options, workload, result);
  } catch (const CheckFailed& failed) {
    result = cleared();
    result.status = results::Status::error;
    result.message = failed.what();
    result.check = failed.check;
  } catch (const CompilerFailed& failed) {
    result = cleared();
    result.status = results::Status::compiler_failed;
    const std::string kept = keep_compiler_text(c.case_id, failed.full);
    result.message = "stage " + core::name_of(c.stage) + ": " + core::first_line(failed.what()) +
                     (kept.empty() ? "" : " (its whole text: " + kept + ")");
  } catch (const SkipCase& skip) {
    result = cleared();
    result.status = results::Status::skipped;
    result.message = skip.what();
  } catch (const std::exception& e) {
    const std::string mode = result.timing.mode;
    const std::string graph = result.timing.cuda_graph;
    result = cleared();
    result.timing.mode = mode;
    result.timing.cuda_graph = graph;
    // The whole text (LibTorch's stack frames too) stays in the result; the console and the
    // Markdown report show its first line.
    result.message = core::trim(e.what());
    // A kernel with no implementation for this dtype on this device is a skipped case: the
    // operator does not support it, nothing failed.
    const bool unsupported = result.message.find("not implemented for '") != std::string::npos;
    result.status = unsupported ? results::Status::skipped : results::Status::error;
    if (unsupported)
      result.message = c.dtype + " is not supported here: " + result.message;
    core::log_debug(c.case_id + ": " + e.what());
  }
  return result;
}

Recording record_case(const results::Case& c, const RecordOptions& options) {
  const CaseScope scope(c);
  Workload w = make_workload(c);
  at::AutoGradMode grad_mode(w.grad_mode);
  w.restore();
  return record_aten_calls(w.eager_call(), options);
}

} // namespace opbench::exec
