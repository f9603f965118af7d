// `opbench list`: what can be run, as a table or JSON.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "commands.hpp"
#include "opbench/catalog/binder.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/plan/planner.hpp"

namespace opbench::cli {
namespace {

struct ListOptions {
  std::vector<std::string> configs;
  std::optional<results::Kind> kind;
  std::string category;
  std::string tag;
  bool json = false;
  bool markdown = false;
  bool all = false;
};

// A Markdown table of `shown`: name (linked to its source where the source names a URL), kind,
// tags, source project, cases. docs/samples.md's sample list is this table (a test holds them
// equal).
void print_markdown(const std::vector<const catalog::Entry*>& shown) {
  std::cout << "| name | kind | tags | source | cases |\n|---|---|---|---|---:|\n";
  for (const auto* entry : shown) {
    const std::string source = entry->cases.front().spec.source;
    const auto url_at = source.find("https://");
    const std::string project =
        core::trim(source.substr(0, url_at == std::string::npos ? source.size() : url_at));
    const std::string name =
        url_at == std::string::npos
            ? "`" + entry->name + "`"
            : "[`" + entry->name + "`](" + core::trim(source.substr(url_at)) + ")";
    std::cout << "| " << name << " | " << core::name_of(entry->kind) << " | "
              << core::join(entry->tags, " ") << " | " << (project.empty() ? "-" : project) << " | "
              << entry->cases.size() << " |\n";
  }
}

int list(const ListOptions& options, const GlobalOptions& global) {
  start_command(global);
  if (options.all) {
    const auto names = catalog::registered_operators();
    if (options.json) {
      std::cout << Json(names).dump(2) << "\n";
    } else {
      for (const auto& name : names)
        std::cout << name << "\n";
    }
    return 0;
  }
  const catalog::Catalog catalog = load_catalog_for(options.configs, global);
  plan::check_filters(catalog,
                      options.tag.empty() ? std::vector<std::string>{}
                                          : std::vector<std::string>{options.tag},
                      options.category.empty() ? std::vector<std::string>{}
                                               : std::vector<std::string>{options.category});
  std::vector<const catalog::Entry*> shown;
  for (const auto& entry : catalog.entries) {
    if (options.kind && entry.kind != *options.kind)
      continue;
    if (!options.category.empty() && entry.category != options.category)
      continue;
    if (!options.tag.empty() && std::find(entry.tags.begin(), entry.tags.end(),
                                          core::canonical_tag(options.tag)) == entry.tags.end()) {
      continue;
    }
    shown.push_back(&entry);
  }
  if (options.markdown) {
    print_markdown(shown);
    return 0;
  }
  if (options.json) {
    Json out = Json::array();
    for (const auto* entry : shown) {
      out.push_back({{"name", entry->name},
                     {"kind", core::name_of(entry->kind)},
                     {"category", entry->category},
                     {"tags", entry->tags},
                     {"cases", entry->cases.size()},
                     {"operator", entry->cases.front().bound.qualified()}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::size_t width = 4;
  for (const auto* entry : shown)
    width = std::max(width, entry->name.size());
  std::cout << fmt::format("{:<{}}  {:<6}  {:<14}  {:>5}  {}\n", "NAME", width, "KIND", "CATEGORY",
                           "CASES", "TAGS");
  for (const auto* entry : shown) {
    std::cout << fmt::format("{:<{}}  {:<6}  {:<14}  {:>5}  {}\n", entry->name, width,
                             core::name_of(entry->kind),
                             entry->category.empty() ? "-" : entry->category, entry->cases.size(),
                             core::join(entry->tags, " "));
  }
  return 0;
}

} // namespace

void add_list_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<ListOptions>();
  auto* cmd = app.add_subcommand("list", "List what can be run: name, kind, category, tags, cases");
  cmd->add_option("--config", options->configs,
                  "Config file to load instead of the config directory")
      ->check(CLI::ExistingFile);
  add_kind_option(*cmd, options->kind, "Only this kind");
  add_library_option(*cmd, global);
  cmd->add_option("--category", options->category, "Only this category");
  cmd->add_option("--tag,--tags", options->tag, "Only entries with this tag");
  cmd->add_flag("--json", options->json, "Print JSON");
  cmd->add_flag("--md", options->markdown,
                "Print a Markdown table (docs/samples.md's sample list: list --kind sample --md)");
  cmd->add_flag("--all", options->all,
                "Every operator LibTorch's dispatcher knows, configured or not");
  cmd->callback([options, &global] { global.exit_code = list(*options, global); });
}

} // namespace opbench::cli
