#pragma once
// `opbench run`'s choice of cases, whatever asked for them: the catalog's cases through the filters
// and axes (the default suite when nothing is asked: every `common` case of the shipped configs),
// a stored result's cases bound again (`--from`), a whole model (`--model`), then `--case` ids
// and a `--shard`. The CLI parses the flags into a Selection and calls select(); nothing here
// reads the command line.

#include <cstdint>
#include <string>
#include <vector>

#include "opbench/catalog/catalog.hpp"
#include "opbench/results/case.hpp"

namespace opbench::plan {

// What the user asked for, as given (comma-separated lists split here).
struct Selection {
  std::vector<std::string> configs; // --config files; none: every config of `config_dir`
  std::string config_dir;           // the shipped configs (or --config-dir)
  std::vector<std::string> ops, samples, axes, tags, categories, shape_classes;
  std::vector<std::string> dtypes{"float32"};
  std::vector<std::string> devices{"cpu"}; // cpu, gpuN, cuda:N
  std::vector<std::string> memory_formats{"contiguous"};
  std::vector<std::string> stages{"eager"};
  std::vector<int> threads; // thread counts, 0 resolved already (the CLI asks exec)
  bool backward = false;
  bool train = false;
  std::uint64_t seed = 0;
  std::string from;                      // a stored result to run again
  bool load_recorded_libraries = false;  // --from loads the libraries its cases name
  std::string model;                     // a TorchScript model as one case
  std::vector<std::string> model_inputs; // its inputs, DIMS[:DTYPE]
  std::vector<std::string> case_ids;     // only these
  std::string shard;                     // I/N
};

// The planned cases of `selection`; throws UsageError (a bad value, a typo: naming the nearest
// known ones; no case matching a --case id) or ConfigError (a config or result that does not
// bind).
std::vector<results::Case> select(const Selection& selection);

// The catalog of the config files `files`, or of every config of `config_dir` when none, with
// the built-in samples beside the shipped configs (with files, only when `samples` asks).
catalog::Catalog load_catalog(const std::vector<std::string>& files, const std::string& config_dir,
                              bool samples);

} // namespace opbench::plan
