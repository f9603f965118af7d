// `opbench extract --model model.pt --input 1x3x224x224 --output configs/my_model.json`.
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/extract/extract.hpp"
#include "opbench/results/store.hpp"

namespace opbench::cli {
namespace {

struct ExtractOptions {
  std::string model;
  std::vector<std::string> inputs;
  std::string output;
  std::uint64_t seed = 0;
};

int run_extract(const ExtractOptions& options, const GlobalOptions& global) {
  start_command(global);
  std::vector<extract::InputSpec> inputs;
  for (const auto& text : options.inputs)
    inputs.push_back(extract::InputSpec::parse(text));
  const extract::Extraction extraction =
      extract::extract_model(options.model, inputs, options.seed);
  core::write_atomically(options.output, extract::to_config(extraction).dump(2) + "\n");
  std::size_t unsupported = 0;
  for (const auto& call : extraction.calls) {
    if (!call.unsupported.empty()) {
      ++unsupported;
      std::cerr << fmt::format("opbench extract: {} (x{}) cannot run from a config: {}\n", call.op,
                               call.count, call.unsupported);
    }
  }
  std::cout << fmt::format(
      "{} top-level ATen call(s), {} distinct ({} kept as unsupported); config: {}\n",
      extraction.total_calls, extraction.calls.size(), unsupported, options.output);
  return k_exit_ok;
}

} // namespace

void add_extract_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<ExtractOptions>();
  auto* cmd = app.add_subcommand(
      "extract", "Record the ATen calls of a TorchScript model as an opbench config");
  cmd->add_option("--model", options->model, "TorchScript model file (torch.jit.save)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--input", options->inputs,
                  "A forward input, DIMS[:DTYPE] (repeatable, in order)")
      ->required();
  cmd->add_option("--output,-o", options->output, "Config file to write (.json)")->required();
  add_library_option(*cmd, global);
  cmd->add_option("--seed", options->seed, "Seed of the generated inputs")
      ->check(seed_value())
      ->capture_default_str();
  cmd->callback([options, &global] { global.exit_code = run_extract(*options, global); });
}

} // namespace opbench::cli
