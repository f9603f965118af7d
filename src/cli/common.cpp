#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "opbench/config/loader.hpp"

namespace opbench::cli {

void start_command(const GlobalOptions& global) {
  spdlog::set_level(spdlog::level::from_str(global.log_level));
}

catalog::Catalog load_catalog_for(const std::vector<std::string>& files, const GlobalOptions& global,
                                  bool samples) {
  const std::vector<std::string> chosen = files.empty() ? config::config_files_in(config_dir(global)) : files;
  spdlog::info("loading {} config file(s)", chosen.size());
  catalog::Catalog catalog = catalog::load_catalog(chosen);
  // The built-in samples come with the shipped configs; with --config files, only on request.
  if (files.empty() || samples) catalog::add_samples(catalog);
  return catalog;
}

}  // namespace opbench::cli
