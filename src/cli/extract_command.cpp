// `opbench extract --model model.pt --input 1x3x224x224 --output configs/my_model.json`,
// `opbench extract --exported model.pt2 --output configs/my_model.json`, or
// `opbench extract --sample box_iou [--axis ...] --output configs/box_iou-calls.json`.
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/extract/extract.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/results/store.hpp"

namespace opbench::cli {
namespace {

struct ExtractOptions {
  std::string model;
  std::string exported;
  std::vector<std::string> dim_names; // --dim OLD=NEW
  std::string record;                 // --record-sizes INPUTS.pt
  std::string sizes_output;           // --sizes-output FILE
  std::vector<std::string> inputs;
  std::string sample;
  std::vector<std::string> axes;
  std::string output;
  std::uint64_t seed = 0;
};

// The extractions the options ask for: the model's calls, or those of each planned case of the
// sample (its catalogue cases, or the --axis sweep of them, at float32 on the CPU).
std::vector<extract::Extraction> extractions_of(const ExtractOptions& options,
                                                const GlobalOptions& global) {
  const int sources = static_cast<int>(!options.model.empty()) +
                      static_cast<int>(!options.exported.empty()) +
                      static_cast<int>(!options.sample.empty());
  if (sources != 1)
    throw UsageError("extract: give --model (with --input), --exported or --sample, one of them");
  if (!options.exported.empty()) {
    if (!options.inputs.empty() || !options.axes.empty())
      throw UsageError("extract --exported: the program's own example inputs give its sizes "
                       "(--input and --axis are for --model and --sample)");
    std::map<std::string, std::string> names;
    for (const std::string& pair : options.dim_names) {
      const auto equals = pair.find('=');
      if (equals == std::string::npos || equals == 0 || equals + 1 == pair.size())
        throw UsageError("extract --dim: expected OLD=NEW (e.g. X_0=BATCH), got '" + pair + "'");
      names[pair.substr(0, equals)] = pair.substr(equals + 1);
    }
    if (options.record.empty() != options.sizes_output.empty())
      throw UsageError("extract --record-sizes INPUTS.pt and --sizes-output FILE go together");
    extract::Extraction extraction = extract::extract_exported(options.exported, options.record);
    extract::rename_dims(extraction, names);
    return {extraction};
  }
  if (!options.dim_names.empty() || !options.record.empty())
    throw UsageError("extract: --dim and --record-sizes are for an exported program (--exported)");
  if (!options.model.empty()) {
    if (options.inputs.empty())
      throw UsageError("extract --model: give its forward inputs with --input DIMS[:DTYPE]");
    std::vector<extract::InputSpec> inputs;
    for (const auto& text : options.inputs)
      inputs.push_back(extract::InputSpec::parse(text));
    return {extract::extract_model(options.model, inputs, options.seed)};
  }
  if (!options.inputs.empty())
    throw UsageError("extract --sample: --input is for --model (a sample makes its own inputs)");
  plan::PlanOptions plan_options;
  plan_options.samples = {options.sample};
  plan_options.seed = options.seed;
  for (const auto& axis : options.axes)
    plan_options.axes.push_back(plan::parse_axis(axis));
  std::vector<extract::Extraction> out;
  for (const results::Case& c : plan::make_plan(load_catalog_for({}, global, true), plan_options))
    out.push_back(extract::extract_case(c));
  return out;
}

int run_extract(const ExtractOptions& options, const GlobalOptions& global) {
  start_command(global);
  const std::vector<extract::Extraction> extractions = extractions_of(options, global);
  core::write_atomically(options.output, extract::to_config(extractions).dump(2) + "\n");
  std::size_t unsupported = 0, distinct = 0;
  int total = 0;
  for (const auto& extraction : extractions) {
    total += extraction.total_calls;
    distinct += extraction.calls.size();
    for (const auto& call : extraction.calls) {
      if (!call.unsupported.empty()) {
        ++unsupported;
        std::cerr << fmt::format("opbench extract: {} (x{}) cannot run from a config: {}\n",
                                 call.op, call.count, call.unsupported);
      }
    }
  }
  for (const auto& extraction : extractions) {
    for (const auto& line : extraction.left_out)
      std::cerr << "opbench extract: " << line << "\n";
  }
  std::cout << fmt::format(
      "{} top-level ATen call(s), {} distinct ({} kept as unsupported); config: {}\n", total,
      distinct, unsupported, options.output);
  if (!options.exported.empty()) {
    const Json& dims = extractions.front().program_dims;
    std::vector<std::string> named;
    for (const auto& [name, dim] : dims.items()) {
      named.push_back(
          fmt::format("{} ({}'s dimension {}, {} here{})", name, dim.value("input", std::string()),
                      dim.value("dim", 0), dim.value("example", Json()).dump(),
                      dim.value("max", Json()).is_number()
                          ? fmt::format(", {} to {}", dim["min"].dump(), dim["max"].dump())
                          : std::string()));
    }
    if (!named.empty()) {
      std::cout << fmt::format(
          "dimensions: {}; sweep one with opbench run --config {} --axis {}=...\n",
          core::join(named, ", "), options.output, dims.items().begin().key());
    }
  }
  if (!options.record.empty()) {
    const extract::Extraction& program = extractions.front();
    core::write_atomically(options.sizes_output, extract::sizes_text(program, options.record));
    std::size_t refused = 0;
    for (const Json& call : program.recorded)
      refused += call.contains("refused") ? 1 : 0;
    std::cout << fmt::format("sizes of {} call(s) ({} refused by the program) in {}; replay them "
                             "with opbench replay --config {} --sizes {}\n",
                             program.recorded.size(), refused, options.sizes_output, options.output,
                             options.sizes_output);
  }
  if (!options.sample.empty()) {
    std::cout << fmt::format("next: opbench run --config {} --samples {}{} -o RUN.json, then "
                             "opbench export --format breakdown -i RUN.json\n",
                             options.output, options.sample,
                             options.axes.empty() ? "" : " --axis ...");
  }
  return k_exit_ok;
}

} // namespace

void add_extract_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<ExtractOptions>();
  auto* cmd = app.add_subcommand(
      "extract",
      "Record the ATen calls of a TorchScript model, a torch.export program or a long-tail sample "
      "as an opbench config");
  cmd->add_option("--model", options->model, "TorchScript model file (torch.jit.save)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--exported", options->exported,
                  "A torch.export program (torch.export.save, .pt2): its operator calls, its "
                  "symbolic sizes as named dimensions (read by the set-up's Python torch)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--dim", options->dim_names,
                  "With --exported: name a dimension, OLD=NEW (e.g. X_0=BATCH; torch.export keeps "
                  "no Dim names, so they are INPUT_K until named; repeatable)");
  cmd->add_option("--record-sizes", options->record,
                  "With --exported: a torch.save of a list of calls' inputs (each a tuple, or one "
                  "tensor), each called through the program's module and its dimensions' sizes "
                  "written to --sizes-output, one call a line, for opbench replay")
      ->check(CLI::ExistingFile);
  cmd->add_option("--sizes-output", options->sizes_output,
                  "With --record-sizes: the sizes file to write");
  cmd->add_option("--input", options->inputs,
                  "A forward input of --model, DIMS[:DTYPE] (repeatable, in order)");
  cmd->add_option("--sample", options->sample,
                  "Instead of a model: a long-tail sample, each of its catalogue cases (or of "
                  "--axis's sweep) recorded on the CPU at float32 (opbench list --kind sample)");
  cmd->add_option("--axis", options->axes,
                  "With --sample: its sizes or parameters by name, NAME=VALUES as in run --axis "
                  "(repeatable)");
  cmd->add_option("--output,-o", options->output, "Config file to write (.json)")->required();
  add_library_option(*cmd, global);
  cmd->add_option("--seed", options->seed, "Seed of the generated inputs")
      ->check(seed_value())
      ->capture_default_str();
  cmd->callback([options, &global] { global.exit_code = run_extract(*options, global); });
}

} // namespace opbench::cli
