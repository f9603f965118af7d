// `opbench show NAME`: an entry's schema, its cases and where they come from.
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "opbench/catalog/binder.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/results/case.hpp"

namespace opbench::cli {
namespace {

struct ShowOptions {
  std::string name;
  std::vector<std::string> configs;
  bool json = false;
  std::optional<results::Kind> kind; // which, when a name is both; none takes the first
};

std::string args_text(const Json& given) {
  std::vector<std::string> parts;
  for (const auto& item : given.items())
    parts.push_back(item.key() + "=" + results::argument_text(item.value()));
  return parts.empty() ? "-" : core::join(parts, ", ");
}

// A sample case's sizes by name, then the parameters it gives: "boxes=3000, coordinates=4",
// "rows=3000, columns=4, beta=0.5".
std::string named_sizes(const std::vector<std::string>& axes, const Json& given) {
  const Json& sizes = given.contains("sizes") ? given["sizes"] : given;
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    parts.push_back((i < axes.size() ? axes[i] : "size" + std::to_string(i)) + "=" +
                    sizes[i].dump());
  }
  for (const auto& item : given.items()) {
    if (item.key() != "sizes")
      parts.push_back(item.key() + "=" + results::argument_text(item.value()));
  }
  return parts.empty() ? "-" : core::join(parts, ", ");
}

// A sample's parameter: "beta: float64, 1 by default, a number in [1e-06, 100]".
std::string parameter_text(const catalog::SampleParameter& p) {
  return fmt::format("{}: {}, {} by default, {}", p.name, p.type,
                     results::argument_text(p.default_value), p.domain());
}

// "an operator" or "a sample".
std::string a_kind(results::Kind kind) {
  return kind == results::Kind::op ? "an operator" : "a " + core::name_of(kind);
}

int show(const ShowOptions& options, const GlobalOptions& global) {
  start_command(global);
  const catalog::Catalog catalog = load_catalog_for(options.configs, global);
  const catalog::Entry* entry = nullptr;
  const catalog::Entry* namesake = nullptr; // another entry of the same name, of the other kind
  for (const auto& candidate : catalog.entries) {
    if (candidate.name != options.name)
      continue;
    if (entry == nullptr && (!options.kind || candidate.kind == *options.kind)) {
      entry = &candidate;
    } else {
      namesake = &candidate;
    }
  }
  if (entry == nullptr && options.kind && namesake != nullptr) {
    throw UsageError("'" + options.name + "' is not " + a_kind(*options.kind) + " (it is " +
                     a_kind(namesake->kind) + ")");
  }
  if (entry == nullptr) {
    for (const auto& candidate : catalog.entries) {
      if (plan::name_matches(candidate, options.name) &&
          (!options.kind || candidate.kind == *options.kind)) {
        entry = &candidate;
        break;
      }
    }
  }
  if (entry == nullptr) {
    const auto schemas = catalog::schemas_of(options.name);
    if (schemas.empty()) {
      throw UsageError("unknown name '" + options.name + "' (opbench list shows what can run)");
    }
    std::cout << options.name << ": no config cases; LibTorch's schemas:\n";
    for (const auto& schema : schemas)
      std::cout << "  " << schema << "\n";
    return 0;
  }
  if (options.json) {
    Json out = {{"name", entry->name},
                {"kind", core::name_of(entry->kind)},
                {"category", entry->category},
                {"tags", entry->tags},
                {"files", entry->files()}};
    if (!entry->written_from.empty())
      out["written_from"] = entry->written_from;
    if (!entry->axes.empty())
      out["axes"] = entry->axes;
    if (!entry->host_sync.empty())
      out["host_sync"] = entry->host_sync;
    if (!entry->grad_inputs.empty())
      out["grad_inputs"] = entry->grad_inputs;
    if (!entry->dtypes.empty())
      out["dtypes"] = entry->dtypes;
    if (!entry->parameters.empty()) {
      Json parameters = Json::array();
      for (const auto& p : entry->parameters) {
        Json item = {{"name", p.name}, {"type", p.type}, {"default", p.default_value}};
        if (p.type == "string") {
          item["choices"] = p.choices;
        } else {
          item["min"] = p.type == "int64" ? Json(static_cast<std::int64_t>(p.min)) : Json(p.min);
          item["max"] = p.type == "int64" ? Json(static_cast<std::int64_t>(p.max)) : Json(p.max);
        }
        parameters.push_back(item);
      }
      out["parameters"] = parameters;
    }
    Json cases = Json::array();
    for (const auto& c : entry->cases) {
      cases.push_back({{"operator", c.bound.qualified()},
                       {"schema", c.bound.schema},
                       {"given", c.bound.given},
                       {"arguments", c.bound.arguments},
                       {"shape_class", c.spec.shape_class},
                       {"source", c.spec.source},
                       {"origin", c.spec.location()},
                       {"tags", c.spec.tags}});
      if (!c.spec.dims.empty()) {
        cases.back()["dims"] = c.spec.dims;
        cases.back()["as_written"] = c.spec.args;
      }
    }
    out["cases"] = cases;
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("{}  ({}{})\n", entry->name, core::name_of(entry->kind),
                           entry->category.empty() ? "" : ", category " + entry->category);
  if (namesake != nullptr && namesake->kind != entry->kind) {
    std::cout << fmt::format("also {} of this name: opbench show --kind {} {}\n",
                             a_kind(namesake->kind), core::name_of(namesake->kind), entry->name);
  }
  if (!entry->tags.empty())
    std::cout << "tags: " << core::join(entry->tags, " ") << "\n";
  if (!entry->written_from.empty()) {
    std::cout << "written from: " << entry->written_from << " (the catalogue names no source)\n";
  }
  if (!entry->host_sync.empty())
    std::cout << "waits for the device: " << entry->host_sync << "\n";
  if (!entry->grad_inputs.empty()) {
    std::vector<std::string> positions;
    for (std::size_t i : entry->grad_inputs)
      positions.push_back(std::to_string(i));
    std::cout << "backward differentiates inputs: " << core::join(positions, ", ")
              << " (the others are constants, as in the original)\n";
  }
  if (!entry->dtypes.empty())
    std::cout << "dtypes: " << core::join(entry->dtypes, ", ") << "\n";
  std::string last_schema;
  for (const auto& c : entry->cases) {
    if (c.bound.schema != last_schema) {
      std::cout << "schema: " << c.bound.schema << "\n";
      last_schema = c.bound.schema;
    }
  }
  if (!entry->axes.empty())
    std::cout << "axes: " << core::join(entry->axes, ", ") << "\n";
  if (!entry->parameters.empty()) {
    std::cout << "parameters (the original's keyword arguments; --axis NAME=VALUES sweeps them):\n";
    for (const auto& p : entry->parameters)
      std::cout << "  " << parameter_text(p) << "\n";
  }
  std::cout << fmt::format("cases ({}):\n", entry->cases.size());
  for (const auto& c : entry->cases) {
    std::cout << fmt::format(
        "  [{}] {}\n      from {}{}\n", c.spec.shape_class.empty() ? "-" : c.spec.shape_class,
        entry->axes.empty() ? args_text(c.bound.given) : named_sizes(entry->axes, c.bound.given),
        c.spec.location(), c.spec.source.empty() ? "" : "; source: " + c.spec.source);
    if (!c.spec.dims.empty()) {
      // What --axis NAME=VALUES sweeps, as written and with the sizes it has here.
      std::vector<std::string> sizes;
      for (const auto& [name, size] : c.spec.dims)
        sizes.push_back(name + "=" + std::to_string(size));
      std::cout << fmt::format("      named dimensions (--axis sweeps them): {}; as written: {}\n",
                               core::join(sizes, ", "), args_text(c.spec.args));
    }
  }
  return 0;
}

} // namespace

void add_show_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<ShowOptions>();
  auto* cmd = app.add_subcommand("show", "Show an entry: schema, cases and where they come from");
  cmd->add_option("name", options->name, "Entry name (e.g. conv2d)")->required();
  cmd->add_option("--config", options->configs,
                  "Config file to load instead of the config directory")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", options->json, "Print JSON");
  add_library_option(*cmd, global);
  add_kind_option(*cmd, options->kind,
                  "The entry of this kind, where an operator and a sample share a name");
  cmd->callback([options, &global] { global.exit_code = show(*options, global); });
}

} // namespace opbench::cli
