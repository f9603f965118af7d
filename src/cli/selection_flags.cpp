// The flags of `opbench run` (and `opbench ab`) that choose the cases, bound to the selection
// (plan/select.hpp), and the planning of those cases.
#include <set>

#include "commands.hpp"
#include "opbench/machine/device_support.hpp"
#include "opbench/plan/select.hpp"
#include "run_options.hpp"

namespace opbench::cli {

void add_selection_flags(CLI::App& cmd, RunOptions& options, GlobalOptions& global) {
  cmd.add_option("--ops", options.selection.ops,
                 "Operators to run, comma-separated (default: all)");
  cmd.add_option("--samples", options.selection.samples,
                 "Long-tail samples to run, comma-separated (opbench list --kind sample); with "
                 "--config files and no --ops, the configs' operators run too");
  cmd.add_option(
      "--axis", options.selection.axes,
      "Sweep a sample's size or parameter by name: NAME=VALUES, e.g. boxes=100,200, "
      "boxes=100:1600:*2, "
      "beta=0.5,1 or mode=iou,giou (repeatable; opbench show NAME lists its axes and parameters)");
  cmd.add_option("--config", options.selection.configs,
                 "Config file to load instead of the config directory (repeatable)")
      ->check(CLI::ExistingFile);
  add_library_option(cmd, global);
  cmd.add_option(
         "--from", options.selection.from,
         "Re-run exactly the cases of a stored result (arguments, dtype, device, threads, seed); "
         "the operator libraries its cases name are not loaded unless named with --load-library "
         "or --load-recorded-libraries")
      ->check(CLI::ExistingFile);
  cmd.add_flag("--load-recorded-libraries", options.selection.load_recorded_libraries,
               "With --from: load the operator libraries the file's cases name (code from "
               "wherever the file came from runs in this process)");
  cmd.add_option("--case", options.selection.case_ids, "Only this case id (repeatable)");
  cmd.add_option("--model", options.selection.model,
                 "Also time a whole TorchScript model as one case (with --input), e.g. next to its "
                 "extracted config")
      ->check(CLI::ExistingFile);
  cmd.add_option("--input", options.selection.model_inputs,
                 "An input of --model, DIMS[:DTYPE] (repeatable)");
  cmd.add_option("--tags,--tag", options.selection.tags, "Keep entries with any of these tags");
  cmd.add_option("--category", options.selection.categories, "Keep entries of these categories");
  cmd.add_option(
      "--shape-class", options.selection.shape_classes,
      "Keep cases of these shape classes (small, common, large, skewed); with no --config "
      "and no filter, run takes the default suite: the common cases");
  cmd.add_option("--shard", options.selection.shard,
                 "Run shard I of N (I/N, 0-based): a stable 1/N of the cases, by hash of case id");
  cmd.add_option("--dtype", options.selection.dtypes, "Dtypes, comma-separated: an axis")
      ->capture_default_str();
  cmd.add_option("--ctx", options.selection.devices,
                 "Devices: cpu, gpuN or cuda:N, comma-separated")
      ->capture_default_str();
  cmd.add_option(
         "--memory-format", options.selection.memory_formats,
         "Layouts of 4-d/5-d tensor inputs, comma-separated: contiguous, channels_last (an axis; "
         "cases without such inputs run contiguous only)")
      ->capture_default_str();
  cmd.add_option("--threads", options.threads,
                 "Intra-op threads, comma-separated: an axis (default: 1; 0: LibTorch's default, "
                 "its physical cores)")
      ->delimiter(',')
      ->check(in_range(run::limits::threads));
  cmd.add_flag("--backward", options.selection.backward,
               "Also time the backward pass of each case");
  cmd.add_flag("--train", options.selection.train,
               "Also time a training step of each case (forward under autograd, then backward, "
               "as one call; memory: the step's peak and what forward keeps for backward)");
  cmd.add_option(
         "--stage", options.selection.stages,
         "Stages, comma-separated: an axis. eager (ATen calls), script (the case traced to a "
         "TorchScript graph, fusion off), fused (that graph with LibTorch's fuser), graph (the "
         "eager calls in one CUDA graph; CUDA only), inductor (the trace compiled ahead of time by "
         "TorchInductor), script-dynamic (one trace of a sample run by one TorchScript function "
         "for "
         "every size, its fuser in dynamic-shape mode), inductor-dynamic (one Inductor package "
         "with symbolic sizes for every size of a sample). "
         "Forward cases only")
      ->capture_default_str();
}

std::vector<results::Case> select_cases(RunOptions& options, const GlobalOptions& global) {
  plan::Selection& selection = options.selection;
  selection.config_dir = config_dir(global);
  selection.threads = threads_axis(options.threads);
  selection.seed = options.settings.seed;
  std::vector<results::Case> cases = plan::select(selection);
  std::set<std::string> devices;
  for (const auto& c : cases)
    devices.insert(c.device);
  for (const auto& device : devices)
    machine::check_device(device);
  return cases;
}

} // namespace opbench::cli
