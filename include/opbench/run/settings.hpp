#pragma once
// Everything that decides how a run measures and where it writes, with its default: the one
// place these defaults are written (`opbench run --help` shows them; docs/reproducibility.md says
// why each is what it is). The CLI binds its flags to these fields; the run (run.hpp), its loop
// (run_loop.hpp) and its fresh processes (child_runs.hpp) read them.

#include <cstdint>
#include <string>

#include "opbench/exec/executor.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::run {

// `run --bandwidth-tolerance`'s default (RunSettings::bandwidth_tolerance); the band the summary
// tells the usual memory bandwidth in when the run sets nothing aside.
inline constexpr double k_default_bandwidth_tolerance = 0.20;

struct RunSettings {
  exec::ExecOptions exec; // how one repetition is measured (exec/measure.hpp's stopping rule)
  std::uint64_t seed = 0; // inputs (recorded per case) and the interleaved order
  int repetitions = 6;    // per case, each with fresh inputs at another placement
  int processes = 3;      // fresh processes the repetitions are split over, one after another
  // [s] a measuring process first measures its first job this long (one repetition at least)
  // and drops it: a fresh process runs small cases slow for a while
  double process_warmup = 0.3;
  bool interleave = true;       // (case, repetition) pairs in a seeded random order
  bool isolate = false;         // every repetition in a fresh process of its own
  int retries = 2;              // per repetition measured while the machine was slow
  double slow_tolerance = 0.10; // speed-canary slowdown past which a repetition counts as slow
  // Memory-bound CPU cases: a repetition whose memory canary was further than this from the usual
  // bandwidth is measured again, then set aside (results::set_aside_unusual_bandwidth); 0: neither
  double bandwidth_tolerance = k_default_bandwidth_tolerance;
  std::string estimator = results::k_default_estimator; // results/estimate.hpp
  std::string host_allocator = "tuned";                 // exec/host_allocator.hpp
  std::string trace_dir;          // a profiler trace of each case (first repetition) here; "": none
  std::string peaks;              // calibrated peaks for % of peak; "": cost::default_peaks_path()
  std::string log_level = "warn"; // what the run's fresh processes log

  // A process started by a run (child_runs.hpp) to measure part of it:
  int placement = 0;         // placement index of its first repetition
  std::string process_label; // "K/P" in a child of --processes: its progress lines say so
};

// Throws UsageError naming the option when a setting is out of its range.
void check(const RunSettings& settings);

} // namespace opbench::run
