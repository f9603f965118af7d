// `opbench run`'s flags that decide how a run measures, bound to run::RunSettings, whose fields'
// defaults are the flags' defaults (run_command.cpp binds the selection's).
#include "commands.hpp"
#include "opbench/core/log.hpp"
#include "opbench/measure/options.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/run/settings.hpp"

namespace opbench::cli {

void add_measuring_flags(CLI::App& cmd, run::RunSettings& settings) {
  cmd.add_option("--seed", settings.seed, "Seed of the input generator and of --interleave")
      ->check(seed_value())
      ->capture_default_str();
  auto& m = settings.exec.measure;
  cmd.add_option("--warmup", m.warmup, "Warmup calls before block calibration")
      ->check(in_range(run::limits::warmup))
      ->capture_default_str();
  cmd.add_option("--runs", m.min_runs, "Timed samples (blocks) at least")
      ->check(in_range(run::limits::runs))
      ->capture_default_str();
  cmd.add_option("--min-time", m.min_time, "Seconds of timed blocks at least")
      ->check(in_range(run::limits::min_time))
      ->capture_default_str();
  cmd.add_option("--max-time", m.max_time,
                 "Stop after this many seconds of timed blocks once --runs samples are in")
      ->check(in_range(run::limits::max_time))
      ->capture_default_str();
  cmd.add_option("--target-noise", m.target_noise,
                 "Stop early once the samples' relative noise (cv) is at or under this")
      ->check(in_range(run::limits::target_noise))
      ->capture_default_str();
  cmd.add_option(
         "--warm-tolerance", m.warm_tolerance,
         "A case of one call a block that an earlier repetition measured (this process or an "
         "earlier one of the run) is warmed up a timed call at a time: the first within this "
         "fraction over the known time per call ends the warmup; 0: always the "
         "full --warmup and calibration")
      ->check(in_range(run::limits::warm_tolerance))
      ->capture_default_str();
  cmd.add_option("--block-time", m.block_time, "A timed block lasts at least this many seconds")
      ->check(in_range(run::limits::block_time))
      ->capture_default_str();
  cmd.add_option("--repetitions", settings.repetitions,
                 "Measure each case this many times, each with fresh inputs at another placement; "
                 "the case's time is --estimator over the repetition medians")
      ->check(in_range(run::limits::repetitions))
      ->capture_default_str();
  cmd.add_option(
         "--estimator", settings.estimator,
         "The case's time from its repetition medians: fastest-third (the mean of the fastest "
         "third of them, the least disturbed; repeats best from run to run on a shared machine), "
         "min (the fastest one) or median (the typical repetition). The median and its interval "
         "are reported with each")
      ->check(CLI::IsMember(results::estimator_names()))
      ->capture_default_str();
  cmd.add_flag("--interleave,!--no-interleave", settings.interleave,
               "Run (case, repetition) pairs in a seeded random order, so each case's repetitions "
               "fall at different moments of the run")
      ->capture_default_str();
  cmd.add_option("--placement", settings.placement,
                 "Placement index of the first repetition (the padding before its inputs); "
                 "--isolate passes each fresh process its own")
      ->check(in_range(run::limits::placement))
      ->group("");
  cmd.add_option(
         "--processes", settings.processes,
         "Split each case's repetitions over this many fresh opbench processes, run one after "
         "another (each measures every case, interleaved in an order of its own), so the case's "
         "time samples what changes between processes too; 1: all in this process")
      ->check(in_range(run::limits::processes))
      ->capture_default_str();
  cmd.add_option("--interval-target", settings.interval_target,
                 "Stop when known: after --min-processes processes, a case whose interval (where "
                 "another run of this build is expected to find its time) is within +-this "
                 "(relative) is done, and the later processes measure only the cases still open; "
                 "0: every case in every process")
      ->check(in_range(run::limits::interval_target))
      ->capture_default_str();
  cmd.add_option("--min-processes", settings.min_processes,
                 "Processes every case is measured in before --interval-target may stop it")
      ->check(in_range(run::limits::processes))
      ->capture_default_str();
  cmd.add_option("--process-label", settings.process_label,
                 "K/P of a --processes child (its progress lines)")
      ->group("");
  cmd.add_option("--hold-file", settings.hold_file,
                 "A measuring process: where it says which case it holds (its supervisor reads it)")
      ->group("");
  cmd.add_option("--run-repetitions", settings.run_repetitions,
                 "A measuring process: the whole run's repetitions of a case (its messages)")
      ->check(in_range(run::limits::repetitions))
      ->group("");
  cmd.add_option("--resume", settings.resume_file,
                 "A measuring process started again: the repetitions kept and cases left out")
      ->group("");
  cmd.add_option("--calibration", settings.calibration_file,
                 "A measuring process: what the run's earlier processes found of each case")
      ->group("");
  cmd.add_option("--case-timeout", settings.case_timeout,
                 "Seconds a measuring process may hold one repetition of a case (a stage's "
                 "compile apart) before it is killed and the case is `timeout`; 0: the default, "
                 "the larger of 60 s and 100 x --max-time")
      ->check(in_range(run::limits::case_timeout))
      ->capture_default_str();
  cmd.add_option("--process-warmup", settings.process_warmup,
                 "Seconds each measuring process first measures its first case and drops it (one "
                 "repetition "
                 "at least): a fresh process runs small cases 15-20% slow for a while; 0: none")
      ->check(in_range(run::limits::process_warmup))
      ->capture_default_str();
  cmd.add_flag("--isolate", settings.isolate,
               "Run each repetition in a fresh opbench process (then --processes does not apply)");
  cmd.add_option(
      "--trace", settings.trace_dir,
      "Write a Chrome/Perfetto trace (LibTorch's Kineto profiler) of 3 calls of each case, "
      "outside the timed loop, into this directory; the result and the HTML report link it");
  cmd.add_option("--retries", settings.retries,
                 "Measure a repetition again, later, up to this many times when the speed canary "
                 "around it was over --slow-tolerance slower than the fastest seen (CPU cases), "
                 "or when a case's repetition medians are over 3x apart (the slow ones; a "
                 "case that stays so is marked unstable); at most 40% of all repetitions in a "
                 "run; 0: never")
      ->check(in_range(run::limits::retries))
      ->capture_default_str();
  cmd.add_option("--slow-tolerance", settings.slow_tolerance,
                 "Relative slowdown of the speed canary that marks a repetition as measured in a "
                 "slow spell")
      ->check(in_range(run::limits::slow_tolerance))
      ->capture_default_str();
  cmd.add_option(
         "--bandwidth-tolerance", settings.bandwidth_tolerance,
         "Memory-bound CPU cases: measure again, then set aside, a repetition whose memory canary "
         "was over this far "
         "from the run's usual memory bandwidth (kept in timing.set_aside, out of the estimate); "
         "0: keep every repetition")
      ->check(in_range(run::limits::bandwidth_tolerance))
      ->capture_default_str();
  cmd.add_flag("--kernel-time", settings.exec.kernel_time,
               "CUDA: after a case's timing, profile 10 calls (CUPTI through Kineto) for the "
               "kernels' device time per call, the kernels and copies a call launches, and "
               "whether any ran on a stream the timer does not wait for (kernel_time)");
  cmd.add_flag("--lock-clocks", settings.lock_clocks,
               "CUDA: lock each device's SM clock at its base clock for the run (NVML; the "
               "driver allows it to root), and say in the context whether it was locked");
  cmd.add_option(
         "--timer", settings.exec.timer,
         "CUDA cases: event (GPU time from CUDA-graph replays timed with CUDA events, with "
         "the CPU time and the batch time of eager calls beside it) or host (host clock with "
         "a synchronize per block); CPU cases always use the host clock")
      ->transform(CLI::CheckedTransformer(core::names_to<measure::CudaTimer>()))
      ->default_str(core::name_of(settings.exec.timer));
  cmd.add_flag("--cold", settings.exec.cold,
               "Overwrite a buffer the size of the cache (CUDA: L2; CPU: last level) before every "
               "timed call, and time each call alone");
  // Before GPU time was the default, graphs had to be asked for; the flag stays accepted.
  cmd.add_flag_callback("--cuda-graph",
                        [] {
                          core::log_warn("--cuda-graph is the default now: CUDA cases report GPU "
                                         "time from CUDA-graph replays");
                        })
      ->group("");
  cmd.add_option("--host-allocator", settings.host_allocator,
                 "Host malloc of the measuring processes: tuned (jemalloc, preloaded, freed memory "
                 "kept, on huge pages; glibc's when none is installed), glibc (glibc's malloc, "
                 "every block from the heap and kept there) or system (glibc's defaults, as in a "
                 "plain PyTorch process); docs/measuring.md")
      ->check(CLI::IsMember({"tuned", "glibc", "system"}))
      ->capture_default_str();
  cmd.add_option("--peaks", settings.peaks,
                 "Peaks from `opbench calibrate` for % of peak (default: $OPBENCH_PEAKS, else "
                 "~/.cache/opbench/peaks.json; none: no percentages)");
}

} // namespace opbench::cli
