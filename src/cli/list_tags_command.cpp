// `opbench list-tags`: every tag with the number of entries carrying it.
#include <fmt/format.h>

#include <iostream>
#include <map>

#include "commands.hpp"
#include "opbench/core/json.hpp"

namespace opbench::cli {
namespace {

struct ListTagsOptions {
  std::vector<std::string> configs;
  bool json = false;
};

int list_tags(const ListTagsOptions& options, const GlobalOptions& global) {
  start_command(global);
  const catalog::Catalog catalog = load_catalog_for(options.configs, global);
  std::map<std::string, std::size_t> counts;
  for (const auto& entry : catalog.entries) {
    for (const auto& tag : entry.tags)
      ++counts[tag];
  }
  if (options.json) {
    Json out = Json::array();
    for (const auto& [tag, count] : counts)
      out.push_back({{"tag", tag}, {"count", count}});
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::size_t width = 3;
  for (const auto& item : counts)
    width = std::max(width, item.first.size());
  std::cout << fmt::format("{:<{}}  {:>5}\n", "TAG", width, "COUNT");
  for (const auto& [tag, count] : counts)
    std::cout << fmt::format("{:<{}}  {:>5}\n", tag, width, count);
  return 0;
}

} // namespace

void add_list_tags_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<ListTagsOptions>();
  auto* cmd = app.add_subcommand("list-tags", "List every tag and how many entries carry it");
  cmd->add_option("--config", options->configs,
                  "Config file to load instead of the config directory")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", options->json, "Print JSON");
  cmd->callback([options, &global] { global.exit_code = list_tags(*options, global); });
}

} // namespace opbench::cli
