#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "opbench/config/loader.hpp"

namespace opbench::cli {

void start_command(const GlobalOptions& global) {
  spdlog::set_level(spdlog::level::from_str(global.log_level));
}

catalog::Catalog load_catalog_for(const std::vector<std::string>& files, const GlobalOptions& global) {
  const std::vector<std::string> chosen = files.empty() ? config::config_files_in(config_dir(global)) : files;
  spdlog::info("loading {} config file(s)", chosen.size());
  return catalog::load_catalog(chosen);
}

}  // namespace opbench::cli
