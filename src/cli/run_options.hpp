#pragma once
// `opbench run`'s options: what to plan (the selection, here) and how to run it
// (run::RunSettings, whose defaults are the flags' defaults).

#include <string>
#include <vector>

#include "opbench/run/settings.hpp"

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
  bool load_recorded_libraries = false; // --from loads the libraries its cases name
  std::string model;
  std::vector<std::string> model_inputs;
  std::string shard;
  bool backward = false;
  bool train = false;
  bool no_memory = false;
  bool dry_run = false;
  std::string output; // the result file; "": RESULTS_DIR/run-<UTC date>.json
  run::RunSettings settings;
};

} // namespace opbench::cli
