// `opbench run`: plan the selected cases (from configs, or re-run from a stored result), run each
// (in this process: exec/run_loop.hpp; the repetitions split over fresh processes: child_runs.hpp),
// write results case by case, and the run's summary.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <set>

#include "child_runs.hpp"
#include "commands.hpp"
#include "run_options.hpp"
#include "opbench/core/files.hpp"
#include "opbench/catalog/binder.hpp"
#include "opbench/core/dtype.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/log.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/cost/roofline.hpp"
#include "opbench/exec/context.hpp"
#include "opbench/extract/extract.hpp"
#include "opbench/exec/canary.hpp"
#include "opbench/exec/device_support.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/exec/host_allocator.hpp"
#include "opbench/exec/run_loop.hpp"
#include "opbench/exec/schedule.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/report/reporter.hpp"
#include "opbench/results/store.hpp"

namespace opbench::cli {
namespace {

// The cases of a stored result, bound again to this LibTorch so they run exactly as recorded.
std::vector<plan::Case> cases_from_results(const std::string& path) {
  std::vector<plan::Case> cases;
  std::vector<std::string> errors;
  for (const auto& record : results::load_results(path).cases) {
    plan::Case c = record.c;
    const std::string where = path + ": " + c.case_id;
    if (!c.skip_reason.empty() || c.kind == "model" || c.kind == "sample") {
      cases.push_back(std::move(c));  // nothing to bind: samples and models carry their inputs
      continue;
    }
    try {
      const catalog::BoundOp bound = catalog::bind_case(c.op, c.given, where);
      if (bound.qualified() != c.op) {
        throw ConfigError(where + ": the arguments now bind to " + bound.qualified() + ", not " + c.op);
      }
      c.schema = bound.schema;
      c.given = bound.given;
      c.arguments = bound.arguments;
      cases.push_back(std::move(c));
    } catch (const ConfigError& e) {
      errors.emplace_back(e.what());
    }
  }
  if (!errors.empty()) throw ConfigError(core::join(errors, "\n"));
  return cases;
}

std::vector<plan::Case> plan_cases(const RunOptions& options, const GlobalOptions& global) {
  plan::PlanOptions plan_options;
  plan_options.ops = core::split_list(options.ops);
  plan_options.samples = core::split_list(options.samples);
  for (const auto& axis : options.axes) plan_options.axes.push_back(plan::parse_axis(axis));
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
  plan_options.stages = core::split_list(options.stages);
  for (const auto& stage : plan_options.stages) {
    const auto& valid = plan::stage_names();
    if (std::find(valid.begin(), valid.end(), stage) == valid.end()) {
      throw UsageError("unknown stage '" + stage + "' in --stage (valid: " + core::join(valid, ", ") + ")");
    }
  }
  plan_options.backward = options.backward;
  plan_options.seed = options.seed;
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

  std::vector<plan::Case> cases;
  if (!options.from.empty()) {
    for (auto& c : cases_from_results(options.from)) {
      const bool named = plan_options.ops.empty() ||
                         std::any_of(plan_options.ops.begin(), plan_options.ops.end(),
                                     [&](const auto& name) { return plan::case_name_matches(c, name); });
      if (named && plan::in_shard(c.case_id, plan_options.shard_index, plan_options.shard_count)) {
        cases.push_back(std::move(c));
      }
    }
  } else if (options.model.empty() || !options.configs.empty() || filtered) {
    // (--model alone times just the model.)
    cases = plan::make_plan(load_catalog_for(options.configs, global, !plan_options.samples.empty()), plan_options);
  }
  if (!options.model.empty()) {
    // The whole model as a case of its own, measured like the others, so the sum of its
    // operators can be held against it.
    if (options.model_inputs.empty()) throw UsageError("--model needs its --input shapes");
    Json inputs = Json::array();
    for (const auto& text : options.model_inputs) inputs.push_back(extract::InputSpec::parse(text).to_json());
    for (const auto& device : plan_options.devices) {
      for (int threads : plan_options.threads) {
        plan::Case c;
        c.name = "model:" + core::filename(options.model);
        c.kind = "model";
        c.op = "model";
        c.given = {{"model", options.model}, {"inputs", inputs}};
        c.arguments = c.given;
        c.origin = options.model;
        c.source = options.model;
        c.dtype = "float32";
        c.device = device;
        c.threads = threads;
        c.direction = "forward";
        c.seed = plan_options.seed;
        c.case_id = plan::make_case_id(c.name, {{"inputs", core::join(options.model_inputs, ";")}}, c.dtype,
                                       device, threads, "forward");
        cases.push_back(std::move(c));
      }
    }
  }
  if (!options.case_ids.empty()) {
    const std::set<std::string> wanted(options.case_ids.begin(), options.case_ids.end());
    std::vector<plan::Case> kept;
    for (auto& c : cases) {
      if (wanted.count(c.case_id) > 0) kept.push_back(std::move(c));
    }
    if (kept.size() != wanted.size()) throw UsageError("a --case id matches no planned case");
    cases = std::move(kept);
  }
  std::set<std::string> devices;
  for (const auto& c : cases) devices.insert(c.device);
  for (const auto& device : devices) exec::check_device(device);
  return cases;
}

// Where --trace puts the trace of `case_id`: a file name made of its readable characters, with
// its stable hash so that two ids never share a file.
std::string trace_file(const std::string& dir, const std::string& case_id) {
  std::string name;
  for (char ch : case_id) {
    const bool keep = std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '=' || ch == ',';
    name += keep ? ch : '_';
  }
  if (name.size() > 150) name.resize(150);
  return fmt::format("{}/{}-{:08x}.json", dir, name, plan::stable_hash(case_id) & 0xffffffffu);
}

// The run's summary, with a warning when many cases were noisy (results::noisy), naming what may
// explain it (load at start, CPU frequency governor, the threads the cases used).
Json run_summary(std::size_t cases, std::size_t ok, std::size_t failed, std::size_t skipped,
                 std::size_t not_reached, std::size_t noisy, const Json& context) {
  Json summary = {{"cases", cases}, {"ok", ok}, {"error", failed}, {"skipped", skipped},
                  {"noise_not_reached", not_reached}, {"noisy", noisy}};
  if (ok > 0 && noisy * 4 > ok) {
    std::string why = fmt::format("{} of {} cases were noisy (their blocks' cv over {:.0f}%)", noisy, ok,
                                  results::k_noisy_cv * 100);
    const Json& load = context.value("load_average", Json());
    if (load.is_array() && !load.empty()) {
      why += fmt::format("; load average at start {:.2f} on {} logical cores", load[0].get<double>(),
                         context.value("logical_cores", 0));
    }
    if (context.contains("cpu_governor") && context["cpu_governor"].is_string()) {
      why += "; CPU frequency governor " + context["cpu_governor"].get<std::string>();
    }
    why += ". For quieter numbers: an idle machine, taskset -c with one core per --threads, a longer --min-time, "
           "--repetitions with --interleave (docs/roofline.md, \"Quieter numbers\")";
    summary["warning"] = why;
  }
  return summary;
}

// Where the run's wall clock went (summary.time_spent, seconds): the cases' timed blocks, the
// rest of their kept repetitions phase by phase (results::TimeSpent), the repetitions measured
// again, the measuring processes' first, dropped repetitions (--process-warmup), and what is left
// (planning, the journal, process start-up with --processes and --isolate).
Json time_spent_summary(double wall, double timed, const results::TimeSpent& spent, double retried,
                        double process_warmup) {
  Json out = {{"wall", wall}, {"timed", timed}};
  out.update(results::to_json(spent));
  out["retried"] = retried;
  out["process_warmup"] = process_warmup;
  out["other"] = std::max(0.0, wall - timed - spent.total() - retried - process_warmup);
  return out;
}

std::string describe_time_spent(const Json& spent) {
  std::string text = fmt::format("{:.1f} s: {:.1f} s timed", spent["wall"].get<double>(), spent["timed"].get<double>());
  const std::pair<const char*, const char*> phases[] = {
      {"warmup", "warmup and calibration"}, {"inputs", "inputs"},
      {"retaken", "interrupted blocks taken again"}, {"recording", "recording ATen calls"},
      {"canary", "speed canary"}, {"probes", "memory probe and traces"},
      {"retried", "repetitions measured again"}, {"process_warmup", "process warmup"}, {"other", "other"}};
  for (const auto& [key, words] : phases) text += fmt::format(", {:.1f} s {}", spent[key].get<double>(), words);
  return text;
}


// `run --processes P`: P fresh processes one after another, each measuring its share of every
// case's repetitions (interleaved in an order of its own). What a process kept is journalled as
// soon as it ends; then each case's parts are combined into one result (its repetition medians
// from all processes) and handed to `finish`. A process that died costs the repetitions it had
// not finished, not the others': a case keeps what the other processes measured, and says so.
exec::SlowSpells measure_in_processes(const std::vector<plan::Case>& cases, const std::vector<int>& shares,
                                const RunOptions& options, const GlobalOptions& global, const std::string& plan_file,
                                const std::string& scratch, results::ResultWriter& writer,
                                const std::function<void(results::CaseResult)>& finish) {
  std::map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < cases.size(); ++i) index_of.emplace(cases[i].case_id, i);
  std::vector<std::vector<std::pair<int, results::CaseResult>>> parts(cases.size());
  std::vector<std::string> problems;
  exec::SlowSpells slow;
  exec::BandwidthReadings& bandwidth = slow.bandwidth;
  const int of = static_cast<int>(shares.size());
  int placement = options.placement;
  for (int k = 0; k < of; ++k) {
    std::cerr << fmt::format("opbench: process {} of {}: {} repetition(s) of each case\n", k + 1, of, shares[k]);
    ProcessPart part = run_process(plan_file, options, global.log_level, k, of, shares[k], placement,
                                   options.exec.memory && k == 0, !options.trace_dir.empty() && k == 0, scratch);
    placement += shares[k];
    for (auto& r : part.results.cases) {
      const auto it = index_of.find(r.c.case_id);
      if (it == index_of.end()) continue;
      writer.append_repetition(r, k, options.repetitions);  // kept should this run be killed
      bandwidth.add(r);
      parts[it->second].emplace_back(k, std::move(r));
    }
    const Json& summary = part.results.summary;
    if (summary.contains("slow_spells")) {
      const Json& spells = summary["slow_spells"];
      slow.measured_again += spells.value("repetitions_measured_again", std::size_t{0});
      slow.repetitions += spells.value("repetitions", std::size_t{0});
      const Json fastest = spells.value("fastest_canary_by_threads", Json::object());
      for (const auto& [threads, seconds] : fastest.items()) {
        const auto [it, first] = slow.fastest_canary.emplace(std::stoi(threads), seconds.get<double>());
        if (!first) it->second = std::min(it->second, seconds.get<double>());
      }
    }
    if (summary.contains("memory_bandwidth") && summary["memory_bandwidth"].is_object()) {
      bandwidth.measured_again += summary["memory_bandwidth"].value("repetitions_measured_again", std::size_t{0});
    }
    if (summary.contains("time_spent")) {
      slow.time_retried += summary["time_spent"].value("retried", 0.0);
      slow.time_process_warmup += summary["time_spent"].value("process_warmup", 0.0);
    }
    if (!part.problem.empty()) {
      std::cerr << "opbench: " << part.problem << "\n";
      problems.push_back(part.problem);
    }
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto& mine = parts[i];
    results::CaseResult result;
    const auto bad = std::find_if(mine.begin(), mine.end(), [](const auto& p) { return p.second.status != "ok"; });
    if (mine.empty()) {
      result.status = "error";
      result.message = "no process measured it: " + core::join(problems, "; ");
    } else if (bad != mine.end()) {
      // A case that failed or was skipped in one process says why, as a run of one process would.
      result = bad->second;
      if (result.status == "error") result.message = fmt::format("process {} of {}: {}", bad->first + 1, of, result.message);
    } else {
      std::vector<results::CaseResult> measured;
      for (auto& p : mine) measured.push_back(std::move(p.second));
      result = results::combine_repetitions(measured, options.estimator);
      result.c = cases[i];
      bandwidth.apply(result, options.bandwidth_tolerance);
      const std::size_t got = result.timing.repetition_medians.size() + result.timing.set_aside.size();
      if (got < static_cast<std::size_t>(options.repetitions)) {
        result.message = fmt::format("{} of {} repetitions: {}", got, options.repetitions, core::join(problems, "; "));
      }
    }
    result.c = cases[i];
    finish(std::move(result));
  }
  return slow;
}

int run(RunOptions& options, const GlobalOptions& global) {
  start_command(global);
  const std::string allocator = exec::configure_host_allocator(options.host_allocator);
  if (options.repetitions < 1) throw UsageError("--repetitions must be at least 1");
  if (options.processes < 1) throw UsageError("--processes must be at least 1");
  const std::vector<plan::Case> cases = plan_cases(options, global);
  if (cases.empty()) throw UsageError("no case matches the filters (opbench list shows what can run)");

  if (options.dry_run) {
    for (const auto& c : cases) std::cout << c.case_id << "\n";
    std::cerr << fmt::format("{} case(s) planned, all configs bind; nothing was run\n", cases.size());
    return k_exit_ok;
  }

  options.exec.memory = !options.no_memory;
  const std::string output =
      options.output.empty() ? results::default_output_path(results_dir(global)) : options.output;
  std::vector<std::string> devices;
  for (const auto& c : cases) {
    if (std::find(devices.begin(), devices.end(), c.device) == devices.end()) devices.push_back(c.device);
  }
  Json context = exec::collect_context(global.command_line, options.seed, allocator, devices);
  const std::string peaks_path = options.peaks.empty() ? cost::default_peaks_path() : options.peaks;
  const cost::PeakStore peaks = cost::PeakStore::load(peaks_path);
  context["peaks_file"] = peaks.entries().empty() ? Json(nullptr) : Json(peaks_path);
  context["repetitions"] = options.repetitions;
  context["estimator"] = options.estimator;
  context["interleave"] = options.interleave;
  context["isolate"] = options.isolate;
  // Which cases the memory canary brackets, and how far from the usual bandwidth a repetition may be.
  context["memory_canary"] = {{"bytes", exec::memory_canary_bytes()},
                              {"memory_bound_bytes", exec::memory_bound_bytes()},
                              {"last_level_cache_bytes", exec::last_level_cache_bytes()},
                              {"bandwidth_tolerance", options.bandwidth_tolerance}};
  // The processes the repetitions are split over (--isolate: one per repetition, in the loop).
  const std::vector<int> shares = options.isolate ? std::vector<int>{options.repetitions}
                                                  : exec::split_repetitions(options.repetitions, options.processes);
  context["processes"] = options.isolate ? options.repetitions : static_cast<int>(shares.size());
  if (!options.trace_dir.empty()) {
    core::create_directories(options.trace_dir);
    options.trace_dir = core::absolute_path(options.trace_dir);  // the report links it from anywhere
    context["trace_dir"] = options.trace_dir;
  }
  results::ResultWriter writer(output, context);
  std::cerr << fmt::format("opbench: {} case(s); finished cases go to {} as they finish\n",
                           cases.size(), writer.journal_path());

  std::string scratch;
  std::string plan_file;
  if (options.isolate || shares.size() > 1) {
    scratch = core::make_temp_directory("opbench-run-");
    plan_file = scratch + "/plan.json";
    write_plan(cases, plan_file);
  }

  const auto start = std::chrono::steady_clock::now();
  results::TimeSpent spent;       // of the cases' kept repetitions
  double timed = 0;               // their timed blocks
  std::size_t finished = 0, ok = 0, failed = 0, skipped = 0, noisy = 0, not_reached = 0;
  // A case whose measurement is over: % of peak, into the results, a line on the console.
  auto finish_case = [&](results::CaseResult result) {
    spent += result.timing.spent;
    timed += result.timing.total_time;
    cost::apply_roofline(result.work, result.estimate.time, peaks.find(result.c.device, result.c.dtype, result.c.threads));
    writer.append(result);
    ++finished;
    (result.status == "ok" ? ok : result.status == "error" ? failed : skipped)++;
    if (result.status == "ok" && !result.timing.noise_reached) ++not_reached;
    if (results::noisy(result)) ++noisy;
    std::cerr << fmt::format("{}[{}/{}] {}  [{:.1f} s]\n",
                             options.process_label.empty() ? "" : "[process " + options.process_label + "] ", finished,
                             cases.size(), report::console_line(result), exec::seconds_since(start));
  };
  exec::SlowSpells slow;
  if (shares.size() > 1) {
    slow = measure_in_processes(cases, shares, options, global, plan_file, scratch, writer, finish_case);
  } else {
    exec::LoopOptions loop;
    loop.repetitions = options.repetitions;
    loop.interleave = options.interleave;
    // A child of --processes orders its jobs by its own seed, so each process meets the cases
    // in another order (its inputs keep the cases' seeds).
    loop.order_seed = options.seed + static_cast<std::uint64_t>(options.placement) * 0x9E3779B97F4A7C15ull;
    loop.retries = options.retries;
    loop.slow_tolerance = options.slow_tolerance;
    loop.bandwidth_tolerance = options.bandwidth_tolerance;
    // An --isolate parent measures nothing itself; its processes each warm up.
    loop.process_warmup = options.isolate ? 0.0 : options.process_warmup;
    // A child of --processes leaves it to its parent, which has the whole run's readings.
    loop.set_aside_here = options.process_label.empty();
    loop.estimator = options.estimator;
    int serial = 0;
    exec::LoopCallbacks on;
    on.options_for = [&options](const plan::Case& c, const exec::Job& job) {
      exec::ExecOptions exec_options = options.exec;
      exec_options.memory = options.exec.memory && job.repetition == 0;
      // The ATen calls and their work are the same in every process: the first records them
      // (a child of --processes or --isolate after the first starts past placement 0).
      exec_options.describe = job.repetition == 0 && options.placement == 0;
      exec_options.repetition = options.placement + job.repetition;
      exec_options.estimator = options.estimator;
      if (!options.trace_dir.empty() && job.repetition == 0) exec_options.trace_path = trace_file(options.trace_dir, c.case_id);
      return exec_options;
    };
    on.measure = [&](const plan::Case& c, const exec::ExecOptions& exec_options) {
      return options.isolate ? run_isolated(c, plan_file, options, exec_options.memory, !exec_options.trace_path.empty(),
                                            exec_options.repetition, scratch, serial++)
                             : exec::run_case(c, exec_options);
    };
    on.kept = [&](const results::CaseResult& r, int repetition) {
      writer.append_repetition(r, repetition, options.repetitions);
    };
    on.finish = finish_case;
    slow = exec::run_loop(cases, loop, on);
  }
  std::vector<std::string> order;
  for (const auto& c : cases) order.push_back(c.case_id);
  Json summary = run_summary(cases.size(), ok, failed, skipped, not_reached, noisy, context);
  Json fastest = Json::object();
  for (const auto& [threads, seconds] : slow.fastest_canary) fastest[std::to_string(threads)] = seconds;
  summary["slow_spells"] = {{"repetitions_measured_again", slow.measured_again},
                            {"repetitions", slow.repetitions},
                            {"tolerance", options.slow_tolerance},
                            {"fastest_canary_by_threads", fastest}};
  if (!slow.bandwidth.empty()) {
    summary["memory_bandwidth"] = slow.bandwidth.summary(options.bandwidth_tolerance);
    for (const auto& [threads, level] : summary["memory_bandwidth"]["by_threads"].items()) {
      std::cerr << fmt::format("opbench: memory canary at {} thread(s): usual {:.1f} GB/s (readings {:.1f}-{:.1f})\n",
                               threads, level["usual"].get<double>() / 1e9, level["lowest"].get<double>() / 1e9,
                               level["highest"].get<double>() / 1e9);
    }
    if (slow.bandwidth.set_aside() > 0) {
      std::cerr << fmt::format("opbench: {} repetition(s) of {} memory-bound case(s) ran at an unusual memory bandwidth "
                               "(over {:.0f}% from the usual) and were set aside\n",
                               slow.bandwidth.set_aside(), slow.bandwidth.cases_set_aside(),
                               options.bandwidth_tolerance * 100);
    }
  }
  const double wall = exec::seconds_since(start);
  summary["time_spent"] = time_spent_summary(wall, timed, spent, slow.time_retried, slow.time_process_warmup);
  std::cerr << "opbench: " << describe_time_spent(summary["time_spent"]) << "\n";
  if (slow.measured_again > 0) {
    const std::size_t for_bandwidth = slow.bandwidth.measured_again;
    std::cerr << fmt::format("opbench: {} of {} repetitions were measured again: {} ran while the machine was over "
                             "{:.0f}% slow (speed canary){}\n",
                             slow.measured_again, slow.repetitions, slow.measured_again - for_bandwidth,
                             options.slow_tolerance * 100,
                             for_bandwidth == 0 ? ""
                                                : fmt::format(", {} at a memory bandwidth off the usual one (memory canary)",
                                                              for_bandwidth));
  }
  if (summary.contains("warning")) std::cerr << "opbench: warning: " << summary["warning"].get<std::string>() << "\n";
  writer.finish(order, summary);
  if (!scratch.empty()) {
    core::remove_all(scratch);
  }
  std::cout << fmt::format("{} case(s): {} ok, {} error, {} skipped; results: {}\n", cases.size(),
                           ok, failed, skipped, output);
  return failed > 0 ? k_exit_case_failed : k_exit_ok;
}

}  // namespace

void add_run_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Run benchmark cases and write their results");
  cmd->add_option("--ops", options->ops, "Operators to run, comma-separated (default: all)");
  cmd->add_option("--samples", options->samples, "Long-tail samples to run, comma-separated (opbench list --kind sample)");
  cmd->add_option("--axis", options->axes,
                  "Sweep a sample's size or parameter by name: NAME=VALUES, e.g. boxes=100,200, boxes=100:1600:*2, "
                  "beta=0.5,1 or mode=iou,giou (repeatable; opbench show NAME lists its axes and parameters)");
  cmd->add_option("--config", options->configs,
                  "Config file to load instead of the config directory (repeatable)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--from", options->from,
                  "Re-run exactly the cases of a stored result (arguments, dtype, device, threads, seed)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--case", options->case_ids, "Only this case id (repeatable)");
  cmd->add_option("--model", options->model,
                  "Also time a whole TorchScript model as one case (with --input), e.g. next to its "
                  "extracted config")
      ->check(CLI::ExistingFile);
  cmd->add_option("--input", options->model_inputs, "An input of --model, DIMS[:DTYPE] (repeatable)");
  cmd->add_option("--tags", options->tags, "Keep entries with any of these tags");
  cmd->add_option("--category", options->categories, "Keep entries of these categories");
  cmd->add_option("--shape-class", options->shape_classes,
                  "Keep cases of these shape classes (small, common, large, skewed); with no --config "
                  "and no filter, run takes the default suite: the common cases");
  cmd->add_option("--shard", options->shard,
                  "Run shard I of N (I/N, 0-based): a stable 1/N of the cases, by hash of case id");
  cmd->add_option("--dtype", options->dtypes, "Dtypes, comma-separated: an axis")->capture_default_str();
  cmd->add_option("--ctx", options->contexts, "Devices: cpu, gpuN or cuda:N, comma-separated")
      ->capture_default_str();
  cmd->add_option("--memory-format", options->memory_formats,
                  "Layouts of 4-d/5-d tensor inputs, comma-separated: contiguous, channels_last (an axis; "
                  "cases without such inputs run contiguous only)")
      ->capture_default_str();
  cmd->add_option("--threads", options->threads,
                  "Intra-op threads, comma-separated: an axis (default: 1; 0: LibTorch's default, its physical cores)")
      ->delimiter(',');
  cmd->add_flag("--backward", options->backward, "Also time the backward pass of each case");
  cmd->add_option("--stage", options->stages,
                  "Stages, comma-separated: an axis. eager (ATen calls), script (the case traced to a "
                  "TorchScript graph, fusion off), fused (that graph with LibTorch's fuser), graph (the "
                  "eager calls in one CUDA graph; CUDA only). Forward cases only")
      ->capture_default_str();
  cmd->add_option("--seed", options->seed, "Seed of the input generator and of --interleave")
      ->capture_default_str();
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
  cmd->add_option("--repetitions", options->repetitions,
                  "Measure each case this many times, each with fresh inputs at another placement; "
                  "the case's time is --estimator over the repetition medians")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--estimator", options->estimator,
                  "The case's time from its repetition medians: fastest-third (the mean of the fastest "
                  "third of them, the least disturbed; repeats best from run to run on a shared machine), "
                  "min (the fastest one) or median (the typical repetition). The median and its interval "
                  "are reported with each")
      ->check(CLI::IsMember(results::estimator_names()))->capture_default_str();
  cmd->add_flag("--interleave,!--no-interleave", options->interleave,
                "Run (case, repetition) pairs in a seeded random order, so each case's repetitions "
                "fall at different moments of the run")
      ->capture_default_str();
  cmd->add_option("--placement", options->placement,
                  "Placement index of the first repetition (the padding before its inputs); "
                  "--isolate passes each fresh process its own")
      ->check(CLI::NonNegativeNumber)->group("");
  cmd->add_option("--processes", options->processes,
                  "Split each case's repetitions over this many fresh opbench processes, run one after "
                  "another (each measures every case, interleaved in an order of its own), so the case's "
                  "time samples what changes between processes too; 1: all in this process")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--process-label", options->process_label, "K/P of a --processes child (its progress lines)")
      ->group("");
  cmd->add_option("--process-warmup", options->process_warmup,
                  "Seconds each measuring process first measures its first case and drops it (one repetition "
                  "at least): a fresh process runs small cases 15-20% slow for a while; 0: none")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_flag("--isolate", options->isolate,
                "Run each repetition in a fresh opbench process (then --processes does not apply)");
  cmd->add_option("--trace", options->trace_dir,
                  "Write a Chrome/Perfetto trace (LibTorch's Kineto profiler) of 3 calls of each case, "
                  "outside the timed loop, into this directory; the result and the HTML report link it");
  cmd->add_option("--retries", options->retries,
                  "Measure a repetition again, later, up to this many times when the speed canary "
                  "around it was over --slow-tolerance slower than the fastest seen (CPU cases; "
                  "at most 40% of all repetitions in a run); 0: never")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--slow-tolerance", options->slow_tolerance,
                  "Relative slowdown of the speed canary that marks a repetition as measured in a slow spell")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--bandwidth-tolerance", options->bandwidth_tolerance,
                  "Memory-bound CPU cases: measure again, then set aside, a repetition whose memory canary was over this far "
                  "from the run's usual memory bandwidth (kept in timing.set_aside, out of the estimate); "
                  "0: keep every repetition")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--timer", options->exec.timer,
                  "CUDA cases: event (GPU time from CUDA-graph replays timed with CUDA events, with "
                  "the CPU time and the batch time of eager calls beside it) or host (host clock with "
                  "a synchronize per block); CPU cases always use the host clock")
      ->check(CLI::IsMember({"event", "host"}))->capture_default_str();
  cmd->add_flag("--cold", options->exec.cold,
                "Overwrite a buffer the size of the cache (CUDA: L2; CPU: last level) before every "
                "timed call, and time each call alone");
  // Before GPU time was the default, graphs had to be asked for; the flag stays accepted.
  cmd->add_flag_callback("--cuda-graph", [] {
    core::log_warn("--cuda-graph is the default now: CUDA cases report GPU time from CUDA-graph replays");
  })->group("");
  cmd->add_flag("--no-memory", options->no_memory, "Skip the untimed memory probe");
  cmd->add_option("--output,-o", options->output,
                  "Result file (default: RESULTS_DIR/run-YYYYMMDD-HHMMSS.json)");
  cmd->add_option("--host-allocator", options->host_allocator,
                  "Host malloc mode: tuned (every block from the heap, kept there after free; "
                  "LibTorch's blocks of 2 MiB or more on huge pages) or system (glibc's defaults, "
                  "as in a plain PyTorch process)")
      ->check(CLI::IsMember({"tuned", "system"}))->capture_default_str();
  cmd->add_option("--peaks", options->peaks,
                  "Peaks from `opbench calibrate` for % of peak (default: $OPBENCH_PEAKS, else "
                  "~/.cache/opbench/peaks.json; none: no percentages)");
  cmd->add_flag("--dry-run", options->dry_run,
                "Bind every config row and print the planned case ids; run nothing");
  cmd->callback([options, &global] { global.exit_code = run(*options, global); });
}

}  // namespace opbench::cli
