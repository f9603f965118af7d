// `opbench run`'s choice of cases (plan/select.hpp).
#include "opbench/plan/select.hpp"

#include <algorithm>
#include <set>

#include "infos.hpp"
#include "opbench/catalog/samples.hpp"
#include "opbench/catalog/tensor_spec.hpp"
#include "opbench/config/loader.hpp"
#include "opbench/core/dtype.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/log.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/plan/sources.hpp"
#include "opbench/results/store.hpp"

namespace opbench::plan {

catalog::Catalog load_catalog(const std::vector<std::string>& files, const std::string& config_dir,
                              bool samples) {
  const std::vector<std::string> chosen =
      files.empty() ? config::config_files_in(config_dir) : files;
  core::log_info("loading " + std::to_string(chosen.size()) + " config file(s)");
  catalog::Catalog catalog = catalog::load_catalog(chosen);
  // The built-in samples come with the shipped configs; with --config files, only on request.
  if (files.empty() || samples)
    catalog::add_samples(catalog, samples::sample_infos());
  return catalog;
}

std::vector<results::Case> select(const Selection& options) {
  PlanOptions plan_options;
  plan_options.ops = core::split_list(options.ops);
  plan_options.samples = core::split_list(options.samples);
  for (const auto& axis : options.axes)
    plan_options.axes.push_back(parse_axis(axis));
  plan_options.tags = core::split_list(options.tags);
  plan_options.categories = core::split_list(options.categories);
  plan_options.shape_classes = core::split_list(options.shape_classes);
  plan_options.dtypes.clear();
  for (const auto& dtype : core::split_list(options.dtypes)) {
    plan_options.dtypes.push_back(core::canonical_dtype(dtype));
  }
  plan_options.devices.clear();
  for (const auto& ctx : core::split_list(options.devices)) {
    plan_options.devices.push_back(core::parse_device(ctx).str());
  }
  plan_options.threads = options.threads;
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
  plan_options.seed = options.seed;
  const bool filtered = !plan_options.ops.empty() || !plan_options.samples.empty() ||
                        !plan_options.tags.empty() || !plan_options.categories.empty() ||
                        !plan_options.shape_classes.empty();
  // The default suite: with no config file and no filter, the `common` cases of the shipped
  // configs (shapes from real models).
  if (options.from.empty() && options.configs.empty() && options.model.empty() &&
      options.case_ids.empty() && !filtered) {
    plan_options.shape_classes = {"common"};
    core::log_info("no filter given: the default suite, every `common` case");
  }
  if (!options.shard.empty()) {
    std::tie(plan_options.shard_index, plan_options.shard_count) = parse_shard(options.shard);
  }

  std::vector<results::Case> cases;
  if (!options.from.empty()) {
    std::vector<results::Case> recorded;
    for (auto& r : results::load_results(options.from).cases)
      recorded.push_back(std::move(r.c));
    for (auto& c : rebind(std::move(recorded), options.from, options.load_recorded_libraries)) {
      const bool named = plan_options.ops.empty() ||
                         std::any_of(plan_options.ops.begin(), plan_options.ops.end(),
                                     [&](const auto& name) { return case_name_matches(c, name); });
      if (named && in_shard(c.case_id, plan_options.shard_index, plan_options.shard_count)) {
        cases.push_back(std::move(c));
      }
    }
  } else if (options.model.empty() || !options.configs.empty() || filtered) {
    // (--model alone times just the model.)
    const catalog::Catalog catalog =
        load_catalog(options.configs, options.config_dir, !plan_options.samples.empty());
    // Config files named with --samples and no --ops: their operators and the samples (the calls
    // `extract --sample` recorded, beside their sample).
    if (!options.configs.empty() && !plan_options.samples.empty() && plan_options.ops.empty()) {
      for (const auto& entry : catalog.entries) {
        if (entry.kind == results::Kind::op)
          plan_options.ops.push_back(entry.name);
      }
    }
    cases = make_plan(catalog, plan_options);
  }
  if (!options.model.empty()) {
    if (options.model_inputs.empty())
      throw UsageError("--model needs its --input shapes");
    Json inputs = Json::array();
    for (const auto& text : options.model_inputs)
      inputs.push_back(catalog::InputSpec::parse(text).to_json());
    for (auto& c : model_cases(options.model, inputs, options.model_inputs, plan_options))
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
  return cases;
}

} // namespace opbench::plan
