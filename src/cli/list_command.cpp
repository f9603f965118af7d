// `opbench list`: what can be run, as a table or JSON.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "commands.hpp"
#include "opbench/catalog/binder.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::cli {
namespace {

struct ListOptions {
  std::vector<std::string> configs;
  std::string kind;
  std::string category;
  std::string tag;
  bool json = false;
  bool all = false;
};

int list(const ListOptions& options, const GlobalOptions& global) {
  start_command(global);
  if (options.all) {
    const auto names = catalog::registered_operators();
    if (options.json) {
      std::cout << Json(names).dump(2) << "\n";
    } else {
      for (const auto& name : names) std::cout << name << "\n";
    }
    return 0;
  }
  const catalog::Catalog catalog = load_catalog_for(options.configs, global);
  std::vector<const catalog::Entry*> shown;
  for (const auto& entry : catalog.entries) {
    if (!options.kind.empty() && entry.kind != options.kind) continue;
    if (!options.category.empty() && entry.category != options.category) continue;
    if (!options.tag.empty() &&
        std::find(entry.tags.begin(), entry.tags.end(), options.tag) == entry.tags.end()) {
      continue;
    }
    shown.push_back(&entry);
  }
  if (options.json) {
    Json out = Json::array();
    for (const auto* entry : shown) {
      out.push_back({{"name", entry->name},
                     {"kind", entry->kind},
                     {"category", entry->category},
                     {"tags", entry->tags},
                     {"cases", entry->cases.size()},
                     {"operator", entry->cases.front().bound.qualified()}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::size_t width = 4;
  for (const auto* entry : shown) width = std::max(width, entry->name.size());
  std::cout << fmt::format("{:<{}}  {:<6}  {:<14}  {:>5}  {}\n", "NAME", width, "KIND", "CATEGORY",
                           "CASES", "TAGS");
  for (const auto* entry : shown) {
    std::cout << fmt::format("{:<{}}  {:<6}  {:<14}  {:>5}  {}\n", entry->name, width, entry->kind,
                             entry->category.empty() ? "-" : entry->category, entry->cases.size(),
                             core::join(entry->tags, " "));
  }
  return 0;
}

}  // namespace

void add_list_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<ListOptions>();
  auto* cmd = app.add_subcommand("list", "List what can be run: name, kind, category, tags, cases");
  cmd->add_option("--config", options->configs, "Config file to load instead of the config directory")
      ->check(CLI::ExistingFile);
  cmd->add_option("--kind", options->kind, "Only this kind")->check(CLI::IsMember({"op", "sample"}));
  cmd->add_option("--category", options->category, "Only this category");
  cmd->add_option("--tag", options->tag, "Only entries with this tag");
  cmd->add_flag("--json", options->json, "Print JSON");
  cmd->add_flag("--all", options->all, "Every operator LibTorch's dispatcher knows, configured or not");
  cmd->callback([options, &global] { global.exit_code = list(*options, global); });
}

}  // namespace opbench::cli
