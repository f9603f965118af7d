// `opbench merge a.json b.json ... --output all.json`: join shard results into one file.
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/results/merge.hpp"
#include "opbench/results/store.hpp"

namespace opbench::cli {
namespace {

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string output;
};

int merge(const MergeOptions& options, const GlobalOptions& global) {
  start_command(global);
  std::vector<std::pair<std::string, results::ResultSet>> inputs;
  for (const auto& path : options.inputs)
    inputs.emplace_back(path, results::load_results(path));
  const results::ResultSet merged = results::merge_results(std::move(inputs));
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
