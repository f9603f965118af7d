// `opbench run`: plan the selected cases, run each, write results case by case.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <iostream>

#include "commands.hpp"
#include "opbench/core/dtype.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/exec/context.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/exec/host_allocator.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/report/reporter.hpp"
#include "opbench/results/store.hpp"

namespace opbench::cli {
namespace {

struct RunOptions {
  std::vector<std::string> ops;
  std::vector<std::string> configs;
  std::vector<std::string> tags;
  std::vector<std::string> categories;
  std::vector<std::string> shape_classes;
  std::vector<std::string> dtypes{"float32"};
  std::vector<std::string> contexts{"cpu"};
  std::vector<int> threads;
  bool backward = false;
  std::uint64_t seed = 0;
  exec::ExecOptions exec;
  bool no_memory = false;
  std::string output;
  std::string host_allocator = "tuned";
  bool dry_run = false;
};

int run(RunOptions& options, const GlobalOptions& global) {
  start_command(global);
  const std::string allocator = exec::configure_host_allocator(options.host_allocator);

  plan::PlanOptions plan_options;
  plan_options.ops = core::split_list(options.ops);
  plan_options.tags = core::split_list(options.tags);
  plan_options.categories = core::split_list(options.categories);
  plan_options.shape_classes = core::split_list(options.shape_classes);
  plan_options.dtypes.clear();
  for (const auto& dtype : core::split_list(options.dtypes)) {
    plan_options.dtypes.push_back(core::canonical_dtype(dtype));
  }
  plan_options.devices.clear();
  for (const auto& ctx : core::split_list(options.contexts)) {
    const std::string device = core::parse_device(ctx).str();
    exec::check_device(device);
    plan_options.devices.push_back(device);
  }
  plan_options.threads = options.threads.empty() ? std::vector<int>{exec::default_threads()} : options.threads;
  for (int t : plan_options.threads) {
    if (t < 1) throw UsageError("--threads must be at least 1");
  }
  plan_options.backward = options.backward;
  plan_options.seed = options.seed;

  const catalog::Catalog catalog = load_catalog_for(options.configs, global);
  const std::vector<plan::Case> cases = plan::make_plan(catalog, plan_options);
  if (cases.empty()) throw UsageError("no case matches the filters (opbench list shows what can run)");

  if (options.dry_run) {
    for (const auto& c : cases) std::cout << c.case_id << "\n";
    std::cerr << fmt::format("{} case(s) planned, all configs bind; nothing was run\n", cases.size());
    return k_exit_ok;
  }

  options.exec.memory = !options.no_memory;
  const std::string output =
      options.output.empty() ? results::default_output_path(results_dir(global)) : options.output;
  const std::uint64_t seed = options.seed;
  results::ResultWriter writer(output, exec::collect_context(global.command_line, seed, allocator));
  std::cerr << fmt::format("opbench: {} case(s); finished cases go to {} as they finish\n",
                           cases.size(), writer.journal_path());

  const auto start = std::chrono::steady_clock::now();
  std::size_t ok = 0, failed = 0, skipped = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const results::CaseResult result = exec::run_case(cases[i], options.exec);
    writer.append(result);
    (result.status == "ok" ? ok : result.status == "error" ? failed : skipped)++;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << fmt::format("[{}/{}] {}  [{:.1f} s]\n", i + 1, cases.size(),
                             report::console_line(result), elapsed);
  }
  writer.finish();
  std::cout << fmt::format("{} case(s): {} ok, {} error, {} skipped; results: {}\n", cases.size(), ok,
                           failed, skipped, output);
  return failed > 0 ? k_exit_case_failed : k_exit_ok;
}

}  // namespace

void add_run_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Run benchmark cases and write their results");
  cmd->add_option("--ops", options->ops, "Operators to run, comma-separated (default: all)");
  cmd->add_option("--config", options->configs,
                  "Config file to load instead of the config directory (repeatable)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--tags", options->tags, "Keep entries with any of these tags");
  cmd->add_option("--category", options->categories, "Keep entries of these categories");
  cmd->add_option("--shape-class", options->shape_classes,
                  "Keep cases of these shape classes (small, common, large, skewed)");
  cmd->add_option("--dtype", options->dtypes, "Dtypes, comma-separated: an axis")->capture_default_str();
  cmd->add_option("--ctx", options->contexts, "Devices: cpu, gpuN or cuda:N, comma-separated")
      ->capture_default_str();
  cmd->add_option("--threads", options->threads,
                  "Intra-op threads, comma-separated: an axis (default: LibTorch's default)")
      ->delimiter(',');
  cmd->add_flag("--backward", options->backward, "Also time the backward pass of each case");
  cmd->add_option("--seed", options->seed, "Seed of the input generator")->capture_default_str();
  auto& m = options->exec.measure;
  cmd->add_option("--warmup", m.warmup, "Warmup calls before block calibration")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--runs", m.min_runs, "Timed samples (blocks) at least")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--min-time", m.min_time, "Seconds of timed blocks at least")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--max-time", m.max_time,
                  "Stop after this many seconds of timed blocks once --runs samples are in")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--target-noise", m.target_noise,
                  "Stop early once the samples' relative noise (cv) is at or under this")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--block-time", m.block_time, "A timed block lasts at least this many seconds")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_flag("--no-memory", options->no_memory, "Skip the untimed memory probe");
  cmd->add_option("--output,-o", options->output,
                  "Result file (default: RESULTS_DIR/run-YYYYMMDD-HHMMSS.json)");
  cmd->add_option("--host-allocator", options->host_allocator,
                  "Host malloc mode: tuned (no heap trimming) or system")
      ->check(CLI::IsMember({"tuned", "system"}))->capture_default_str();
  cmd->add_flag("--dry-run", options->dry_run,
                "Bind every config row and print the planned case ids; run nothing");
  cmd->callback([options, &global] { global.exit_code = run(*options, global); });
}

}  // namespace opbench::cli
