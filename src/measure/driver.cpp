// The one driver: every case, whatever its kind, is timed, recorded and probed here (workload.hpp).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#if OPBENCH_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include "opbench/measure/cuda_timer.hpp"
#endif

#include "opbench/measure/cuda_graph.hpp"
#include "opbench/measure/gpu_timing.hpp"
#if OPBENCH_WITH_CUDA
#include "launch_gate.hpp"
#endif
#include "opbench/core/log.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/machine/canary.hpp"
#include "opbench/machine/device_state.hpp"
#include "opbench/machine/device_support.hpp"
#include "opbench/machine/devices.hpp"
#include "opbench/measure/call_recorder.hpp"
#include "opbench/measure/holding.hpp"
#include "opbench/measure/memory_probe.hpp"
#include "opbench/measure/timer.hpp"
#include "opbench/measure/workload.hpp"
#include "opbench/results/estimate.hpp"
#include "trace.hpp"

namespace opbench::measure {

using machine::canary_seconds;
using machine::device_of;
using machine::flush_bytes;
using machine::memory_bound_bytes;
using machine::memory_canary_bandwidth;

namespace {

// Calls in a case's trace (run --trace): the first shows any first-call work, the others the
// steady state.
constexpr int k_trace_calls = 3;
constexpr int k_kernel_time_calls = 10; // profiled calls of --kernel-time

// Cold mode's flush: overwrites a buffer the size of the device's last cache level.
struct Flush {
  at::Tensor buffer;
  int value = 0;
  void operator()() {
    if (buffer.defined())
      buffer.fill_((++value) & 0x7f);
  }
};

Flush make_flush(const results::Case& c, bool cold) {
  Flush flush;
  if (cold) {
    flush.buffer = at::empty({flush_bytes(c.device)},
                             at::TensorOptions().dtype(at::kByte).device(device_of(c.device)));
  }
  return flush;
}

// Cold, or with inputs to put back (Workload::restore): one call at a time, each after its restore
// and its flush (the flush evicts what the restore brought into the cache). A block of several
// calls of an in-place operator would run all but its first on what the calls before left, and
// how many a block holds changes with the block-size calibration: acos_ on 8x128x768 lasts about
// one block time, so it ran 1 or 2 calls a block, the second on NaN-making values, and its time
// moved x0.29 from run to run. The clock's own cost (~30 ns here) is 0.3% of the fastest in-place
// case of the default suite (13.5 us).
template <typename Call, typename Timer>
Measurement measure_with(Call& call, const Restore& restore, Flush& flush, bool cold,
                         const MeasureOptions& options, Timer& timer) {
  if (!cold && !restore.run)
    return measure(call, options, timer);
  return measure_cold(
      call,
      [&] {
        restore();
        flush();
      },
      options, timer);
}

// The workload's calls, as measure_with times them; hot, through Workload::repeat where it has one
// (the loop over the calls inside the callee).
template <typename Timer>
Measurement measure_calls(Workload& w, Flush& flush, bool cold, const MeasureOptions& options,
                          Timer& timer) {
  if (w.repeat && !cold && !w.restore.run)
    return measure_repeated(w.repeat, options, timer);
  return measure_with(w.call, w.restore, flush, cold, options, timer);
}

// The host clock, on the CPU: blocks during which the process was descheduled are taken again
// (MeasureOptions::interruptions), and the speed canary before and after says whether the
// machine ran at full speed meanwhile. With `sync` (a CUDA stream synchronize, --timer host) it
// waits for the device at both ends of every block.
// A memory-bound CPU case (inputs of canary.hpp's memory_bound_bytes or more) also has the memory
// canary before and after: the bandwidth the host gave while it ran
// (TimingInfo::repetition_bandwidth).
Measurement time_on_host(const results::Case& c, const ExecOptions& options, Workload& w,
                         results::TimingInfo& timing, std::function<void()> sync) {
  const bool cpu = device_of(c.device).is_cpu();
  Flush flush = make_flush(c, options.cold);
  MeasureOptions measure_options = options.measure;
  const int threads = at::get_num_threads();
  if (cpu) {
    measure_options.interruptions = interruptions_of_this_process;
    if (threads == 1)
      measure_options.thread_cpu_seconds = cpu_seconds_of_this_thread;
  }
  SteadyTimer timer(std::move(sync));
  timing.timer = timer.id();
  timing.measures = cpu ? results::Measures::host : results::Measures::host_sync;
  const bool bracketed = cpu && w.input_bytes >= memory_bound_bytes();
  auto start = std::chrono::steady_clock::now();
  const double before = cpu ? canary_seconds(threads) : 0.0;
  const double bandwidth_before = bracketed ? memory_canary_bandwidth() : 0.0;
  timing.spent.canary += seconds_since(start);
  Measurement m = measure_calls(w, flush, options.cold, measure_options, timer);
  start = std::chrono::steady_clock::now();
  const double bandwidth_after = bracketed ? memory_canary_bandwidth() : 0.0;
  const double after = cpu ? canary_seconds(threads) : 0.0;
  timing.spent.canary += seconds_since(start);
  timing.discarded_blocks = m.discarded;
  timing.interrupted_kept = m.interrupted_kept;
  timing.canary = std::max(before, after);
  if (bracketed)
    timing.repetition_bandwidth = {{bandwidth_before, bandwidth_after}};
  return m;
}

#if OPBENCH_WITH_CUDA
// The three CUDA times of a repetition (results::TimingInfo::measures): batch and CPU time as
// side figures, then the GPU time, which becomes the case's samples: graph replays of many calls,
// or, for a call timed alone (cold, or inputs put back), one eager call behind the launch gate.
// Where neither can be (gpu_timing.hpp; `no_graph`: the call draws random numbers or waits for
// the device; `waits_for_device`: it waits), the batch measurement is the case's samples and
// `cuda_graph` says why.
Measurement time_on_cuda(const results::Case& c, const ExecOptions& options, Workload& w,
                         const std::string& no_graph, const std::string& waits_for_device,
                         results::TimingInfo& timing) {
  const at::Device device = device_of(c.device);
  const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(device.index());
  Flush flush = make_flush(c, options.cold);
  // The side figures take the least time the stopping rule allows.
  MeasureOptions side = options.measure;
  side.max_time = side.min_time;

  CudaEventTimer events(stream);
  Measurement batch = measure_calls(w, flush, options.cold, side, events);
  const double batch_median = stats::median(batch.samples);
  timing.batch_times.push_back(batch_median);

  // The host's time in the calls: the device drained before each block, never waited for inside
  // one. A block holds at most 256 calls (the launch queue, about a thousand entries, never fills)
  // and about block_time of device work (the drain before the next block stays short); min_runs
  // blocks are enough, as the host's time is steady.
  MeasureOptions launch_options = options.measure;
  launch_options.min_time = 0;
  launch_options.max_time = 0;
  launch_options.max_block = static_cast<std::int64_t>(
      std::clamp(std::ceil(options.measure.block_time / std::max(batch_median, 1e-9)), 1.0, 256.0));
  const auto drain = [stream] { stream.synchronize(); };
  SteadyTimer launches(drain, /*sync_at_stop=*/false);
  const Measurement cpu = measure_calls(w, flush, options.cold, launch_options, launches);
  timing.cpu_times.push_back(stats::median(cpu.samples));

  timing.timer = events.id();
  timing.measures = results::Measures::batch;
  const GpuTimingChoice choice =
      choose_gpu_timing(options.cold || w.restore.run, waits_for_device,
                        !w.not_capturable.empty() ? w.not_capturable : no_graph);
  if (choice.how == GpuTiming::batch) {
    timing.cuda_graph = "fallback: " + choice.why;
    return batch;
  }
  Measurement m;
  int calls = 1;
  if (choice.how == GpuTiming::eager_gated) {
    // One eager call an interval, each after its restore or flush, behind the launch gate
    // (launch_gate.hpp): the device waits while the host queues the restore, the start event,
    // the call and the stop event, so the interval holds the call's kernels and no launch. No
    // graph: a one-node graph's replay costs the device about 2 us over its kernel
    // (docs/cuda-log.md, "the launch gate"); nvbench times its cold measurements this way.
    LaunchGate gate(stream);
    auto eager = [&w, &gate] {
      w.call();
      gate.check();
    };
    auto put_back = [&] {
      gate.close();
      w.restore();
      flush();
    };
    m = measure_cold(eager, put_back, options.measure, events);
    timing.cuda_graph = "off: one call an interval; " + gate.describe();
  } else {
    calls = calls_per_replay(batch_median);
    std::unique_ptr<at::cuda::CUDAGraph> graph;
    try {
      graph = capture_graph(device, w.call, calls);
    } catch (const std::exception& e) {
      timing.cuda_graph = "fallback: " + core::first_line(e.what());
      // A failed capture can leave the stream in an error state only in the capture; the
      // caching allocator frees the capture's private pool with the graph.
      stream.synchronize();
      return batch;
    }
    auto replay = [&graph] { graph->replay(); };
    m = measure(replay, options.measure, events);
    timing.cuda_graph = "on (" + std::to_string(calls) + " calls per replay)";
  }
  for (double& s : m.samples)
    s /= calls; // a replay runs `calls` calls
  if (stats::median(m.samples) < 1e-7) {
    // No kernel runs in under 100 ns: the call launches no device work (a view, metadata), so
    // its cost is the host's, measured as the CPU time is, with the full stopping rule.
    SteadyTimer host(drain, /*sync_at_stop=*/false);
    Measurement h = measure_calls(w, flush, options.cold, options.measure, host);
    timing.timer = host.id();
    timing.cuda_graph =
        timing.cuda_graph.rfind("on", 0) == 0 ? "on: no device work" : "off: no device work";
    timing.measures = results::Measures::cpu;
    return h;
  }
  m.block_size *= calls;
  m.noise = stats::cv(m.samples);
  m.noise_reached = m.noise <= options.measure.target_noise;
  timing.measures = results::Measures::gpu;
  return m;
}
#endif

void finish(results::CaseResult& result, const Measurement& m, const MeasureOptions& options,
            const std::string& estimator) {
  result.timing.spent.warmup += m.warmup_time;
  result.timing.spent.retaken += m.retaken_time;
  result.samples = m.samples;
  result.summary = stats::summarize(m.samples);
  result.timing.block_size = m.block_size;
  result.timing.warmup_calls = m.warmup_calls;
  result.timing.total_time = m.total_time;
  result.timing.target_noise = options.target_noise;
  result.timing.noise = m.noise;
  result.timing.noise_reached = m.noise_reached;
  // One repetition; the run's loop (results::combine_repetitions) makes the estimate over all
  // of them.
  result.timing.repetition_medians = {result.summary.median};
  result.estimate = results::estimate_of(result.timing.repetition_medians, estimator);
}

// The memory probe of one call; on CUDA also the caching allocator's peaks.
results::MemoryStats probe(const results::Case& c, const std::function<void()>& call) {
#if OPBENCH_WITH_CUDA
  const at::Device device = device_of(c.device);
  if (device.is_cuda()) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(device.index());
    results::MemoryStats stats = probe_memory(call);
    c10::cuda::device_synchronize();
    const auto device_stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
    const auto aggregate =
        static_cast<std::size_t>(c10::CachingDeviceAllocator::StatType::AGGREGATE);
    stats.device_peak_allocated_bytes = device_stats.allocated_bytes[aggregate].peak;
    stats.device_peak_reserved_bytes = device_stats.reserved_bytes[aggregate].peak;
    return stats;
  }
#else
  (void)c;
#endif
  return probe_memory(call);
}

} // namespace

void drive(const results::Case& c, const ExecOptions& options, Workload& w,
           results::CaseResult& result) {
  at::AutoGradMode grad_mode(w.grad_mode);
  result.timing.call_path = w.call_path;
  result.timing.mode = options.cold ? "cold" : "hot";
  result.timing.restored = w.restore.arguments;
  // One untimed call under the recorder first: its ATen calls and the work they do, and whether
  // it draws random numbers or makes the host wait for the device (then no CUDA graph can hold
  // it; one that waits is not timed behind the launch gate either). They are the same in
  // every repetition: on the CPU only the first (`describe`) records them; on CUDA every one
  // does, as the graph capture needs to know. The roofline is made once, from the case's
  // estimate over all repetitions (run/run.cpp).
  std::string no_graph;
  std::string waits_for_device;
  result.stage_info = w.stage_info;
  result.check = w.check;
  const at::Device device = device_of(c.device);
  if (w.recordable && (options.describe || !device.is_cpu())) {
    hold_phase(Phase::record);
    const auto start = std::chrono::steady_clock::now();
    const Recording recording = record_aten_calls(w.eager_call());
    if (options.describe) {
      result.work.aten_calls = w.work_call ? count_aten_calls(w.call)
                                           : static_cast<std::int64_t>(recording.calls.size());
    }
    const cost::Cost work = work_of(recording.calls);
    result.work.flops = work.flops;
    result.work.bytes = work.bytes;
    result.work.flops_rule = work.flops_rule;
    if (!recording.random.empty()) {
      // A graph replays the generator offsets of its capture; LibTorch refuses a generator used
      // by a captured graph and by eager calls in turn (seen with randint on 2.11).
      no_graph = "the call draws random numbers (" + recording.random.front() + ")";
    }
    for (const HostSync& sync : recording.syncs) {
      if (!sync.on_cpu || device_of(c.device).is_cpu()) {
        waits_for_device = "the call waits for the device (" + sync.op + ")";
        no_graph = waits_for_device;
        break;
      }
    }
    w.release();
    result.timing.spent.recording += seconds_since(start);
  }
  Measurement m;
#if OPBENCH_WITH_CUDA
  if (device.is_cuda()) {
    // The device's clocks, throttle reasons, temperature and power at both ends of the
    // repetition (machine/device_state.hpp; nothing where NVML cannot be read).
    auto start = std::chrono::steady_clock::now();
    const auto state_before = machine::device_states().read(device.index());
    result.timing.spent.canary += seconds_since(start);
    if (options.timer == CudaTimer::host) {
      const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(device.index());
      m = time_on_host(c, options, w, result.timing, [stream] { stream.synchronize(); });
    } else {
      m = time_on_cuda(c, options, w, no_graph, waits_for_device, result.timing);
    }
    start = std::chrono::steady_clock::now();
    const auto state_after = machine::device_states().read(device.index());
    result.timing.spent.canary += seconds_since(start);
    if (state_before && state_after)
      result.timing.repetition_device_state = {{*state_before, *state_after}};
  }
#endif
  if (device.is_cpu())
    m = time_on_host(c, options, w, result.timing, {});
  finish(result, m, options.measure, options.estimator);
  const auto probes_start = std::chrono::steady_clock::now();
  if (options.memory) {
    hold_phase(Phase::memory_probe);
    w.release();
    result.memory = probe(c, w.call);
    if (w.kept_for_backward)
      result.memory->kept_for_backward_bytes = w.kept_for_backward();
  }
  if (!options.trace_path.empty()) {
    // A trace that cannot be written costs the case nothing but its trace.
    hold_phase(Phase::trace);
    w.release();
    try {
      write_trace(w.call, device, k_trace_calls, options.trace_path);
      result.trace = options.trace_path;
    } catch (const std::exception& e) {
      core::log_warn(c.case_id + ": no trace: " + core::first_line(e.what()));
    }
  }
  if (options.kernel_time && device.is_cuda()) {
    // Like the trace, a failure here costs the case its kernel time only.
    hold_phase(Phase::trace);
    w.release();
    try {
      result.kernel_time = profile_kernel_time(w.call, device, k_kernel_time_calls);
    } catch (const std::exception& e) {
      core::log_warn(c.case_id + ": no kernel time: " + core::first_line(e.what()));
    }
  }
  result.timing.spent.probes += seconds_since(probes_start);
  if (w.check_after && result.check) {
    // The implementation's outputs again, after its timed calls (results::OutputCheck).
    hold_phase(Phase::check);
    w.release();
    w.check_after(*result.check);
    if (!result.check->failed.empty()) {
      result.status = results::Status::error;
      result.message = result.check->failed;
    }
  }
}

} // namespace opbench::measure
