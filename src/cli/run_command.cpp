// `opbench run`: parses the flags, plans the selected cases (plan/) and hands them to a run
// (run/run.hpp), printing its progress; the run measures and writes the results.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <set>

#include "commands.hpp"
#include "opbench/catalog/libraries.hpp"
#include "opbench/core/dtype.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/log.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/exec/device_support.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/extract/extract.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/plan/sources.hpp"
#include "opbench/report/reporter.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/store.hpp"
#include "opbench/run/run.hpp"
#include "run_options.hpp"

namespace opbench::cli {
namespace {

std::vector<results::Case> plan_cases(const RunOptions& options, const GlobalOptions& global) {
  plan::PlanOptions plan_options;
  plan_options.ops = core::split_list(options.ops);
  plan_options.samples = core::split_list(options.samples);
  for (const auto& axis : options.axes)
    plan_options.axes.push_back(plan::parse_axis(axis));
  plan_options.tags = core::split_list(options.tags);
  plan_options.categories = core::split_list(options.categories);
  plan_options.shape_classes = core::split_list(options.shape_classes);
  plan_options.dtypes.clear();
  for (const auto& dtype : core::split_list(options.dtypes)) {
    plan_options.dtypes.push_back(core::canonical_dtype(dtype));
  }
  plan_options.devices.clear();
  for (const auto& ctx : core::split_list(options.contexts)) {
    plan_options.devices.push_back(core::parse_device(ctx).str());
  }
  plan_options.threads = threads_axis(options.threads);
  plan_options.memory_formats = core::split_list(options.memory_formats);
  for (const auto& format : plan_options.memory_formats) {
    if (format != "contiguous" && format != "channels_last") {
      throw UsageError("unknown memory format '" + format + "' (valid: contiguous, channels_last)");
    }
  }
  plan_options.stages.clear();
  for (const auto& name : core::split_list(options.stages)) {
    results::Stage stage{};
    if (!core::parse_name(name, stage)) {
      throw UsageError("unknown stage '" + name + "' in --stage (valid: " +
                       core::join(core::names_of<results::Stage>(), ", ") + ")");
    }
    plan_options.stages.push_back(stage);
  }
  plan_options.backward = options.backward;
  plan_options.train = options.train;
  plan_options.seed = options.settings.seed;
  const bool filtered = !plan_options.ops.empty() || !plan_options.samples.empty() ||
                        !plan_options.tags.empty() || !plan_options.categories.empty() ||
                        !plan_options.shape_classes.empty();
  // The default suite: with no config file and no filter, the `common` cases of the shipped
  // configs (shapes from real models).
  if (options.from.empty() && options.configs.empty() && options.model.empty() &&
      options.case_ids.empty() && !filtered) {
    plan_options.shape_classes = {"common"};
    spdlog::info("no filter given: the default suite, every `common` case");
  }
  if (!options.shard.empty()) {
    std::tie(plan_options.shard_index, plan_options.shard_count) = plan::parse_shard(options.shard);
  }

  std::vector<results::Case> cases;
  if (!options.from.empty()) {
    std::vector<results::Case> recorded;
    for (auto& r : results::load_results(options.from).cases)
      recorded.push_back(std::move(r.c));
    for (auto& c :
         plan::rebind(std::move(recorded), options.from, options.load_recorded_libraries)) {
      const bool named =
          plan_options.ops.empty() ||
          std::any_of(plan_options.ops.begin(), plan_options.ops.end(),
                      [&](const auto& name) { return plan::case_name_matches(c, name); });
      if (named && plan::in_shard(c.case_id, plan_options.shard_index, plan_options.shard_count)) {
        cases.push_back(std::move(c));
      }
    }
  } else if (options.model.empty() || !options.configs.empty() || filtered) {
    // (--model alone times just the model.)
    const catalog::Catalog catalog =
        load_catalog_for(options.configs, global, !plan_options.samples.empty());
    // Config files named with --samples and no --ops: their operators and the samples (the calls
    // `extract --sample` recorded, beside their sample).
    if (!options.configs.empty() && !plan_options.samples.empty() && plan_options.ops.empty()) {
      for (const auto& entry : catalog.entries) {
        if (entry.kind == results::Kind::op)
          plan_options.ops.push_back(entry.name);
      }
    }
    cases = plan::make_plan(catalog, plan_options);
  }
  if (!options.model.empty()) {
    if (options.model_inputs.empty())
      throw UsageError("--model needs its --input shapes");
    Json inputs = Json::array();
    for (const auto& text : options.model_inputs)
      inputs.push_back(extract::InputSpec::parse(text).to_json());
    for (auto& c : plan::model_cases(options.model, inputs, options.model_inputs, plan_options))
      cases.push_back(std::move(c));
  }
  if (!options.case_ids.empty()) {
    const std::set<std::string> wanted(options.case_ids.begin(), options.case_ids.end());
    std::vector<results::Case> kept;
    for (auto& c : cases) {
      if (wanted.count(c.case_id) > 0)
        kept.push_back(std::move(c));
    }
    if (kept.size() != wanted.size())
      throw UsageError("a --case id matches no planned case");
    cases = std::move(kept);
  }
  std::set<std::string> devices;
  for (const auto& c : cases)
    devices.insert(c.device);
  for (const auto& device : devices)
    exec::check_device(device);
  return cases;
}

// Prints the run's progress: a line per finished case, a line per note. A child of --processes
// (`process_label` set) prints only how far it is, at most every k_child_progress_s: its parent
// prints the run's lines, one per case once every process measured it.
constexpr double k_child_progress_s = 10;
run::RunObserver console(const std::string& process_label) {
  run::RunObserver observer;
  if (!process_label.empty()) {
    auto last = std::make_shared<double>(0.0);
    observer.started = [](std::size_t, const std::string&) {};
    observer.case_done = [process_label, last](const results::CaseResult&, std::size_t finished,
                                               std::size_t total, double elapsed) {
      if (finished == total || elapsed - *last < k_child_progress_s)
        return;
      *last = elapsed;
      std::cerr << fmt::format("opbench: process {}: {} of {} case(s) measured [{:.1f} s]\n",
                               process_label, finished, total, elapsed);
    };
    observer.note = [](const std::string&) {};
    return observer;
  }
  observer.started = [](std::size_t cases, const std::string& journal) {
    std::cerr << fmt::format("opbench: {} case(s); finished cases go to {} as they finish\n", cases,
                             journal);
  };
  observer.case_done = [](const results::CaseResult& r, std::size_t finished, std::size_t total,
                          double elapsed) {
    std::cerr << fmt::format("[{}/{}] {}  [{:.1f} s]\n", finished, total, report::console_line(r),
                             elapsed);
  };
  observer.note = [](const std::string& line) { std::cerr << "opbench: " << line << "\n"; };
  return observer;
}

int run(RunOptions& options, const GlobalOptions& global) {
  start_command(global);
  run::RunSettings& settings = options.settings;
  settings.exec.memory = !options.no_memory;
  settings.log_level = global.log_level;
  run::Session session(settings); // sets up the host allocator before anything is planned
  const std::vector<results::Case> cases = plan_cases(options, global);
  std::vector<std::string> libraries;
  for (const auto& library : catalog::loaded_libraries())
    libraries.push_back(library.path);
  session.use_libraries(std::move(libraries));
  if (cases.empty())
    throw UsageError("no case matches the filters (opbench list shows what can run)");
  if (options.dry_run) {
    for (const auto& c : cases)
      std::cout << c.case_id << "\n";
    std::cerr << fmt::format("{} case(s) planned, all configs bind; nothing was run\n",
                             cases.size());
    return k_exit_ok;
  }
  const std::string output =
      options.output.empty() ? results::default_output_path(results_dir(global)) : options.output;
  if (!options.from.empty() && core::is_regular_file(output) &&
      core::absolute_path(output) == core::absolute_path(options.from)) {
    throw UsageError("--output " + output + " is the --from file: this run's " +
                     std::to_string(cases.size()) +
                     " case(s) would replace what it holds; give --output another file");
  }
  const run::RunOutcome outcome =
      session.run(cases, output, global.command_line, console(settings.process_label));
  std::cout << fmt::format("{} case(s): {}; results: {}\n", outcome.cases, outcome.counts.text(),
                           outcome.output);
  // A case that did not run as asked (opbench's error, a compiler's, a timeout) fails the run.
  return outcome.counts.failed() > 0 ? k_exit_case_failed : k_exit_ok;
}

} // namespace

void add_run_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Run benchmark cases and write their results");
  cmd->add_option("--ops", options->ops, "Operators to run, comma-separated (default: all)");
  cmd->add_option("--samples", options->samples,
                  "Long-tail samples to run, comma-separated (opbench list --kind sample); with "
                  "--config files and no --ops, the configs' operators run too");
  cmd->add_option(
      "--axis", options->axes,
      "Sweep a sample's size or parameter by name: NAME=VALUES, e.g. boxes=100,200, "
      "boxes=100:1600:*2, "
      "beta=0.5,1 or mode=iou,giou (repeatable; opbench show NAME lists its axes and parameters)");
  cmd->add_option("--config", options->configs,
                  "Config file to load instead of the config directory (repeatable)")
      ->check(CLI::ExistingFile);
  add_library_option(*cmd, global);
  cmd->add_option(
         "--from", options->from,
         "Re-run exactly the cases of a stored result (arguments, dtype, device, threads, seed); "
         "the operator libraries its cases name are not loaded unless named with --load-library "
         "or --load-recorded-libraries")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--load-recorded-libraries", options->load_recorded_libraries,
                "With --from: load the operator libraries the file's cases name (code from "
                "wherever the file came from runs in this process)");
  cmd->add_option("--case", options->case_ids, "Only this case id (repeatable)");
  cmd->add_option(
         "--model", options->model,
         "Also time a whole TorchScript model as one case (with --input), e.g. next to its "
         "extracted config")
      ->check(CLI::ExistingFile);
  cmd->add_option("--input", options->model_inputs,
                  "An input of --model, DIMS[:DTYPE] (repeatable)");
  cmd->add_option("--tags,--tag", options->tags, "Keep entries with any of these tags");
  cmd->add_option("--category", options->categories, "Keep entries of these categories");
  cmd->add_option(
      "--shape-class", options->shape_classes,
      "Keep cases of these shape classes (small, common, large, skewed); with no --config "
      "and no filter, run takes the default suite: the common cases");
  cmd->add_option("--shard", options->shard,
                  "Run shard I of N (I/N, 0-based): a stable 1/N of the cases, by hash of case id");
  cmd->add_option("--dtype", options->dtypes, "Dtypes, comma-separated: an axis")
      ->capture_default_str();
  cmd->add_option("--ctx", options->contexts, "Devices: cpu, gpuN or cuda:N, comma-separated")
      ->capture_default_str();
  cmd->add_option(
         "--memory-format", options->memory_formats,
         "Layouts of 4-d/5-d tensor inputs, comma-separated: contiguous, channels_last (an axis; "
         "cases without such inputs run contiguous only)")
      ->capture_default_str();
  cmd->add_option("--threads", options->threads,
                  "Intra-op threads, comma-separated: an axis (default: 1; 0: LibTorch's default, "
                  "its physical cores)")
      ->delimiter(',')
      ->check(in_range(run::limits::threads));
  cmd->add_flag("--backward", options->backward, "Also time the backward pass of each case");
  cmd->add_flag("--train", options->train,
                "Also time a training step of each case (forward under autograd, then backward, "
                "as one call; memory: the step's peak and what forward keeps for backward)");
  cmd->add_option(
         "--stage", options->stages,
         "Stages, comma-separated: an axis. eager (ATen calls), script (the case traced to a "
         "TorchScript graph, fusion off), fused (that graph with LibTorch's fuser), graph (the "
         "eager calls in one CUDA graph; CUDA only), inductor (the trace compiled ahead of time by "
         "TorchInductor), script-dynamic (one trace of a sample run by one TorchScript function "
         "for "
         "every size, its fuser in dynamic-shape mode), inductor-dynamic (one Inductor package "
         "with symbolic sizes for every size of a sample). "
         "Forward cases only")
      ->capture_default_str();
  cmd->add_option("--seed", options->settings.seed,
                  "Seed of the input generator and of --interleave")
      ->check(seed_value())
      ->capture_default_str();
  auto& m = options->settings.exec.measure;
  cmd->add_option("--warmup", m.warmup, "Warmup calls before block calibration")
      ->check(in_range(run::limits::warmup))
      ->capture_default_str();
  cmd->add_option("--runs", m.min_runs, "Timed samples (blocks) at least")
      ->check(in_range(run::limits::runs))
      ->capture_default_str();
  cmd->add_option("--min-time", m.min_time, "Seconds of timed blocks at least")
      ->check(in_range(run::limits::min_time))
      ->capture_default_str();
  cmd->add_option("--max-time", m.max_time,
                  "Stop after this many seconds of timed blocks once --runs samples are in")
      ->check(in_range(run::limits::max_time))
      ->capture_default_str();
  cmd->add_option("--target-noise", m.target_noise,
                  "Stop early once the samples' relative noise (cv) is at or under this")
      ->check(in_range(run::limits::target_noise))
      ->capture_default_str();
  cmd->add_option("--block-time", m.block_time, "A timed block lasts at least this many seconds")
      ->check(in_range(run::limits::block_time))
      ->capture_default_str();
  cmd->add_option("--repetitions", options->settings.repetitions,
                  "Measure each case this many times, each with fresh inputs at another placement; "
                  "the case's time is --estimator over the repetition medians")
      ->check(in_range(run::limits::repetitions))
      ->capture_default_str();
  cmd->add_option(
         "--estimator", options->settings.estimator,
         "The case's time from its repetition medians: fastest-third (the mean of the fastest "
         "third of them, the least disturbed; repeats best from run to run on a shared machine), "
         "min (the fastest one) or median (the typical repetition). The median and its interval "
         "are reported with each")
      ->check(CLI::IsMember(results::estimator_names()))
      ->capture_default_str();
  cmd->add_flag("--interleave,!--no-interleave", options->settings.interleave,
                "Run (case, repetition) pairs in a seeded random order, so each case's repetitions "
                "fall at different moments of the run")
      ->capture_default_str();
  cmd->add_option("--placement", options->settings.placement,
                  "Placement index of the first repetition (the padding before its inputs); "
                  "--isolate passes each fresh process its own")
      ->check(in_range(run::limits::placement))
      ->group("");
  cmd->add_option(
         "--processes", options->settings.processes,
         "Split each case's repetitions over this many fresh opbench processes, run one after "
         "another (each measures every case, interleaved in an order of its own), so the case's "
         "time samples what changes between processes too; 1: all in this process")
      ->check(in_range(run::limits::processes))
      ->capture_default_str();
  cmd->add_option("--process-label", options->settings.process_label,
                  "K/P of a --processes child (its progress lines)")
      ->group("");
  cmd->add_option(
         "--hold-file", options->settings.hold_file,
         "A measuring process: where it says which case it holds (its supervisor reads it)")
      ->group("");
  cmd->add_option("--run-repetitions", options->settings.run_repetitions,
                  "A measuring process: the whole run's repetitions of a case (its messages)")
      ->check(in_range(run::limits::repetitions))
      ->group("");
  cmd->add_option("--resume", options->settings.resume_file,
                  "A measuring process started again: the repetitions kept and cases left out")
      ->group("");
  cmd->add_option("--case-timeout", options->settings.case_timeout,
                  "Seconds a measuring process may hold one repetition of a case (a stage's "
                  "compile apart) before it is killed and the case is `timeout`; 0: the default, "
                  "the larger of 60 s and 100 x --max-time")
      ->check(in_range(run::limits::case_timeout))
      ->capture_default_str();
  cmd->add_option("--process-warmup", options->settings.process_warmup,
                  "Seconds each measuring process first measures its first case and drops it (one "
                  "repetition "
                  "at least): a fresh process runs small cases 15-20% slow for a while; 0: none")
      ->check(in_range(run::limits::process_warmup))
      ->capture_default_str();
  cmd->add_flag("--isolate", options->settings.isolate,
                "Run each repetition in a fresh opbench process (then --processes does not apply)");
  cmd->add_option(
      "--trace", options->settings.trace_dir,
      "Write a Chrome/Perfetto trace (LibTorch's Kineto profiler) of 3 calls of each case, "
      "outside the timed loop, into this directory; the result and the HTML report link it");
  cmd->add_option("--retries", options->settings.retries,
                  "Measure a repetition again, later, up to this many times when the speed canary "
                  "around it was over --slow-tolerance slower than the fastest seen (CPU cases), "
                  "or when a case's repetition medians are over 3x apart (the slow ones; a "
                  "case that stays so is marked unstable); at most 40% of all repetitions in a "
                  "run; 0: never")
      ->check(in_range(run::limits::retries))
      ->capture_default_str();
  cmd->add_option("--slow-tolerance", options->settings.slow_tolerance,
                  "Relative slowdown of the speed canary that marks a repetition as measured in a "
                  "slow spell")
      ->check(in_range(run::limits::slow_tolerance))
      ->capture_default_str();
  cmd->add_option(
         "--bandwidth-tolerance", options->settings.bandwidth_tolerance,
         "Memory-bound CPU cases: measure again, then set aside, a repetition whose memory canary "
         "was over this far "
         "from the run's usual memory bandwidth (kept in timing.set_aside, out of the estimate); "
         "0: keep every repetition")
      ->check(in_range(run::limits::bandwidth_tolerance))
      ->capture_default_str();
  cmd->add_option(
         "--timer", options->settings.exec.timer,
         "CUDA cases: event (GPU time from CUDA-graph replays timed with CUDA events, with "
         "the CPU time and the batch time of eager calls beside it) or host (host clock with "
         "a synchronize per block); CPU cases always use the host clock")
      ->transform(CLI::CheckedTransformer(core::names_to<exec::CudaTimer>()))
      ->default_str(core::name_of(options->settings.exec.timer));
  cmd->add_flag("--cold", options->settings.exec.cold,
                "Overwrite a buffer the size of the cache (CUDA: L2; CPU: last level) before every "
                "timed call, and time each call alone");
  // Before GPU time was the default, graphs had to be asked for; the flag stays accepted.
  cmd->add_flag_callback("--cuda-graph",
                         [] {
                           core::log_warn("--cuda-graph is the default now: CUDA cases report GPU "
                                          "time from CUDA-graph replays");
                         })
      ->group("");
  cmd->add_flag("--no-memory", options->no_memory, "Skip the untimed memory probe");
  cmd->add_option("--output,-o", options->output,
                  "Result file (default: RESULTS_DIR/run-YYYYMMDD-HHMMSS.json)");
  cmd->add_option("--host-allocator", options->settings.host_allocator,
                  "Host malloc mode: tuned (every block from the heap, kept there after free; "
                  "LibTorch's blocks of 2 MiB or more on huge pages) or system (glibc's defaults, "
                  "as in a plain PyTorch process)")
      ->check(CLI::IsMember({"tuned", "system"}))
      ->capture_default_str();
  cmd->add_option("--peaks", options->settings.peaks,
                  "Peaks from `opbench calibrate` for % of peak (default: $OPBENCH_PEAKS, else "
                  "~/.cache/opbench/peaks.json; none: no percentages)");
  cmd->add_flag("--dry-run", options->dry_run,
                "Bind every config row and print the planned case ids; run nothing");
  cmd->callback([options, &global] { global.exit_code = run(*options, global); });
}

} // namespace opbench::cli
