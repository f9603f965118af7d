// `opbench merge a.json b.json ... --output all.json`: join shard results into one file.
#include <fmt/format.h>

#include <iostream>
#include <set>

#include "commands.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/results/store.hpp"

namespace opbench::cli {
namespace {

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string output;
};

// Context fields that must agree for results to be merged: same LibTorch, same device kind.
const std::vector<std::string>& must_match() {
  static const std::vector<std::string> k_keys = {"libtorch_version", "libtorch_cuda_compiled",
                                                  "cpu_model", "host_allocator"};
  return k_keys;
}

int merge(const MergeOptions& options, const GlobalOptions& global) {
  start_command(global);
  results::ResultSet merged;
  std::set<std::string> seen;
  Json sources = Json::array();
  for (const auto& path : options.inputs) {
    results::ResultSet set = results::load_results(path);
    if (sources.empty()) {
      merged.context = set.context;
    } else {
      for (const auto& key : must_match()) {
        const Json a = merged.context.value(key, Json());
        const Json b = set.context.value(key, Json());
        if (a != b) {
          throw ResultsError(fmt::format("{}: {} is {}, but {} has {}; results of different setups "
                                         "are not merged",
                                         path, key, b.dump(), options.inputs.front(), a.dump()));
        }
      }
    }
    sources.push_back({{"file", path},
                       {"host", set.context.value("host", "")},
                       {"date", set.context.value("date", "")},
                       {"cases", set.cases.size()}});
    for (auto& r : set.cases) {
      if (!seen.insert(r.c.case_id).second) {
        throw ResultsError(path + ": case " + r.c.case_id + " is in two of the files to merge");
      }
      merged.cases.push_back(std::move(r));
    }
  }
  merged.context["merged_from"] = sources;
  core::write_atomically(options.output, results::to_json(merged).dump(2) + "\n");
  std::cout << fmt::format("{} case(s) from {} file(s); results: {}\n", merged.cases.size(),
                           options.inputs.size(), options.output);
  return k_exit_ok;
}

} // namespace

void add_merge_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<MergeOptions>();
  auto* cmd = app.add_subcommand(
      "merge", "Join result files (e.g. shards) into one; refuses files of different setups");
  cmd->add_option("inputs", options->inputs, "Result files or journals")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--output,-o", options->output, "Merged result file")->required();
  cmd->callback([options, &global] { global.exit_code = merge(*options, global); });
}

} // namespace opbench::cli
