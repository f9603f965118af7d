// `opbench replay --sizes sizes.txt --samples bbox2delta [--stage eager,inductor-dynamic]
// [--output replay.json] [--md replay.md]`: a model's sizes in order through each stage
// (replay/replay.hpp, docs/replay.md).
#include <fmt/format.h>

#include <cstring>
#include <iostream>

#include "commands.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/names.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/machine/context.hpp"
#include "opbench/machine/device_support.hpp"
#include "opbench/replay/replay.hpp"
#include "opbench/run/interrupt.hpp"

namespace opbench::cli {
namespace {

struct ReplayOptions {
  std::string sizes;
  plan::Selection selection;
  std::vector<std::string> stages{"eager", "script-dynamic", "inductor-dynamic"};
  int threads = 1;
  int steady_calls = 20;
  double call_timeout = 60; // [s] one call (a stage's compile: run::k_compile_timeout)
  std::string output;
  std::string md;
  std::string part; // set by the parent: replay one stage here and write it to this file
};

// The arguments of the process that replays `stage` for the parent with these options.
replay::ChildCommand child_command(const ReplayOptions& options, const GlobalOptions& global,
                                   results::Stage stage, const std::string& part) {
  replay::ChildCommand command{"/proc/self/exe", {"opbench", "--config-dir", config_dir(global)}};
  auto& a = command.args;
  a.insert(a.end(), {"replay", "--sizes", options.sizes, "--stage", core::name_of(stage), "--part",
                     part, "--threads", std::to_string(options.threads), "--steady-calls",
                     std::to_string(options.steady_calls), "--seed",
                     std::to_string(options.selection.seed)});
  const auto list = [&](const char* flag, const std::vector<std::string>& values) {
    if (!values.empty())
      a.insert(a.end(), {flag, core::join(values, ",")});
  };
  list("--samples", options.selection.samples);
  list("--ops", options.selection.ops);
  list("--dtype", options.selection.dtypes);
  list("--ctx", options.selection.devices);
  for (const std::string& config : options.selection.configs)
    a.insert(a.end(), {"--config", config});
  for (const std::string& library : global.libraries)
    a.insert(a.end(), {"--load-library", library});
  return command;
}

int run_replay(ReplayOptions& options, const GlobalOptions& global) {
  start_command(global);
  options.selection.config_dir = config_dir(global);
  options.selection.threads = threads_axis({options.threads});
  std::vector<results::Stage> stages;
  for (const std::string& name : options.stages) {
    for (const std::string& one : core::split(name, ',')) {
      const auto stage = core::parse_name_or_throw<results::Stage>(one, "stage", "replay --stage");
      if (stage != results::Stage::eager && stage != results::Stage::script_dynamic &&
          stage != results::Stage::inductor_dynamic)
        throw UsageError("replay --stage: " + one +
                         " is made for one size; a replay runs eager, script-dynamic and "
                         "inductor-dynamic");
      stages.push_back(stage);
    }
  }
  const std::vector<replay::SizeSet> sizes = replay::read_sizes(options.sizes);
  // A program from extract --exported: inductor-dynamic replays the program itself.
  const std::optional<replay::Program> program =
      options.selection.configs.size() == 1 ? replay::program_of(options.selection.configs.front())
                                            : std::nullopt;
  // Every size set planned at every stage before anything runs: a bad line stops the replay here.
  // (A stage's own process, --part, plans its one stage.)
  const std::vector<replay::Planned> planned =
      replay::plan_sizes(options.selection, options.sizes, sizes, stages);
  for (const auto& cases : planned.front())
    for (const results::Case& c : cases)
      machine::check_device(c.device);
  if (!options.part.empty()) {
    replay::replay_part(planned.front(), sizes, stages.front(), options.steady_calls, options.part,
                        program);
    return 0;
  }
  std::cout << fmt::format("replay: {} size set(s) of {} through {}, each stage in a process of "
                           "its own\n",
                           sizes.size(), options.sizes, core::join(options.stages, ","))
            << std::flush;
  // Written again as each stage ends: an interrupted replay keeps the stages before.
  replay::Replay kept;
  kept.sizes_file = options.sizes;
  kept.sizes = sizes;
  kept.context = machine::collect_context(global.command_line, options.selection.seed, "default",
                                          options.selection.devices);
  replay::replay(
      kept, stages,
      [&](results::Stage stage, const std::string& part) {
        std::cout << core::name_of(stage) << ": replaying"
                  << (stage == results::Stage::inductor_dynamic
                          ? " (the package compiled or taken from the cache, each size it was not "
                            "compiled at tried in a process of its own first)"
                          : "")
                  << "...\n"
                  << std::flush;
        return child_command(options, global, stage, part);
      },
      [&](const replay::Replay& so_far) {
        std::cout << replay::summary_line(so_far.stages.back()) << "\n" << std::flush;
        if (!options.output.empty())
          core::write_atomically(options.output, replay::to_json(so_far).dump(1) + "\n");
        if (!options.md.empty())
          core::write_atomically(options.md, replay::markdown(so_far));
      },
      options.call_timeout);
  if (kept.interrupted != 0) {
    std::cerr << fmt::format("opbench: interrupted by {}: the {} stage(s) replayed so far are kept "
                             "in {}\n",
                             strsignal(kept.interrupted), kept.stages.size(),
                             options.output.empty() ? "(no --output)" : options.output);
    run::die_of(kept.interrupted);
  }
  bool all_ok = true;
  for (const replay::StageReplay& stage : kept.stages)
    all_ok = all_ok && (stage.ok || stage.skipped) && replay::totals_of(stage).failed == 0;
  return all_ok ? 0 : 1;
}

} // namespace

void add_replay_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<ReplayOptions>();
  CLI::App* cmd = app.add_subcommand(
      "replay", "Run the sizes a model meets, in order, through eager and the dynamic stages: each "
                "call timed once, then against the steady time at its size (docs/replay.md)");
  cmd->add_option(
         "--sizes", options->sizes,
         "The sizes, one set a line: NAME=SIZE pairs separated by spaces (e.g. boxes1=1000 "
         "boxes2=200), each an --axis of one value; # starts a comment")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--samples", options->selection.samples,
                  "Long-tail samples to replay, comma-separated");
  cmd->add_option("--ops", options->selection.ops, "Operators of the configs to replay (eager)");
  cmd->add_option("--config", options->selection.configs,
                  "Config file (repeatable): e.g. a program's operators from extract --exported, "
                  "their named dimensions given by the sizes")
      ->check(CLI::ExistingFile);
  add_library_option(*cmd, global);
  cmd->add_option("--dtype", options->selection.dtypes, "Dtypes, comma-separated")
      ->capture_default_str();
  cmd->add_option("--ctx", options->selection.devices, "Devices: cpu, gpuN or cuda:N")
      ->capture_default_str();
  cmd->add_option("--threads", options->threads, "Intra-op threads (0: LibTorch's default)")
      ->capture_default_str()
      ->check(in_range(run::limits::threads));
  cmd->add_option("--stage", options->stages,
                  "Stages, comma-separated: eager, script-dynamic, inductor-dynamic (the dynamic "
                  "ones run samples; each stage replays in a process of its own)")
      ->capture_default_str();
  cmd->add_option("--steady-calls", options->steady_calls,
                  "Calls timed at each size after the replay for its steady time (their median)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--call-timeout", options->call_timeout,
                  "Seconds a stage's process may spend in one call before it is stopped and the "
                  "calls before it kept (a stage's compile may take 30 min)")
      ->capture_default_str()
      ->check(in_range(limits::seconds));
  cmd->add_option("--seed", options->selection.seed, "Seed of the inputs")->capture_default_str();
  cmd->add_option("-o,--output", options->output, "Write the replay (every call) as JSON here");
  cmd->add_option("--md", options->md, "Write the replay as Markdown here");
  cmd->add_option("--part", options->part, "(internal) replay one stage here into this file")
      ->group("");
  cmd->callback([options, &global] { global.exit_code = run_replay(*options, global); });
}

} // namespace opbench::cli
