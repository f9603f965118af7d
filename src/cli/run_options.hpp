#pragma once
// `opbench run`'s options, shared by the command and the fresh processes it starts
// (child_runs.hpp).

#include <cstdint>
#include <string>
#include <vector>

#include "opbench/exec/executor.hpp"
#include "opbench/exec/schedule.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::cli {

struct RunOptions {
  std::vector<std::string> ops;
  std::vector<std::string> samples;
  std::vector<std::string> axes;
  std::vector<std::string> configs;
  std::vector<std::string> tags;
  std::vector<std::string> categories;
  std::vector<std::string> shape_classes;
  std::vector<std::string> dtypes{"float32"};
  std::vector<std::string> contexts{"cpu"};
  std::vector<std::string> memory_formats{"contiguous"};
  std::vector<std::string> stages{"eager"};
  std::vector<int> threads;
  std::vector<std::string> case_ids;
  std::string from;
  std::string model;
  std::vector<std::string> model_inputs;
  std::string shard;
  bool backward = false;
  std::uint64_t seed = 0;
  exec::ExecOptions exec;
  bool no_memory = false;
  int repetitions = 6;
  int processes = 3;  // fresh processes the repetitions are split over, one after another
  // [s] a measuring process first measures its first job this long (one repetition at least)
  // and drops it: a fresh process runs small cases slow for a while (run_command.cpp)
  double process_warmup = 0.3;
  bool interleave = true;
  int placement = 0;  // index of the first repetition's placement (the children of --isolate and --processes)
  std::string process_label;  // "K/P" in a child of --processes: its progress lines say so
  int retries = 2;             // per repetition measured while the machine was slow
  double slow_tolerance = 0.10;  // canary slowdown past which a repetition counts as slow
  // Memory-bound cases: a repetition whose memory canary was further than this from the usual
  // bandwidth is measured again, then set aside (results::set_aside_unusual_bandwidth); 0: neither
  double bandwidth_tolerance = exec::BandwidthReadings::k_default_tolerance;
  bool isolate = false;
  std::string trace_dir;  // --trace: a profiler trace of each case (first repetition) here
  std::string output;
  std::string host_allocator = "tuned";
  std::string estimator = results::k_default_estimator;
  std::string peaks;
  bool dry_run = false;
};

}  // namespace opbench::cli
