#include "opbench/cli/main.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <iostream>

#include "commands.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/version.hpp"
#include "opbench/results/result_set.hpp"
#include "opbench/run/interrupt.hpp"

namespace opbench::cli {

std::string config_dir(const GlobalOptions& global) {
  if (!global.config_dir.empty())
    return global.config_dir;
  if (const char* env = std::getenv("OPBENCH_CONFIG_DIR"); env != nullptr && *env != '\0')
    return env;
  return OPBENCH_DEFAULT_CONFIG_DIR;
}

std::string results_dir(const GlobalOptions& global) {
  if (!global.results_dir.empty())
    return global.results_dir;
  if (const char* env = std::getenv("OPBENCH_RESULTS_DIR"); env != nullptr && *env != '\0')
    return env;
  return "results";
}

int main(int argc, char** argv) {
  GlobalOptions global;
  for (int i = 0; i < argc; ++i)
    global.command_line += (i ? " " : "") + std::string(argv[i]);
  spdlog::set_default_logger(spdlog::stderr_color_mt("opbench"));
  spdlog::set_pattern("opbench: %l: %v");

  CLI::App app{"opbench: benchmarks deep-learning operators one at a time through LibTorch"};
  // "opbench X (result schema N)": `ab` reads a side's schema from it before measuring.
  app.set_version_flag("--version", fmt::format("opbench {} (result schema {})", opbench::version(),
                                                results::k_schema_version));
  app.require_subcommand(1);
  app.fallthrough();
  app.add_option("--log-level", global.log_level, "Log level")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  app.add_option("--config-dir", global.config_dir,
                 "Directory of operator configs (default: $OPBENCH_CONFIG_DIR, else " +
                     std::string(OPBENCH_DEFAULT_CONFIG_DIR) + ")");
  app.add_option("--results-dir", global.results_dir,
                 "Directory of stored results (default: $OPBENCH_RESULTS_DIR, else ./results)");

  add_run_command(app, global);
  add_list_command(app, global);
  add_list_tags_command(app, global);
  add_show_command(app, global);
  add_export_command(app, global);
  add_compare_command(app, global);
  add_history_command(app, global);
  add_merge_command(app, global);
  add_calibrate_command(app, global);
  add_extract_command(app, global);
  add_ab_command(app, global);
  add_replay_command(app, global);

  try {
    app.parse(argc, argv);
    return global.exit_code;
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : k_exit_usage;
  } catch (const ConfigError& e) {
    std::cerr << "opbench: config error:\n" << e.what() << "\n";
  } catch (const DeviceError& e) {
    std::cerr << "opbench: " << e.what() << "\n";
  } catch (const run::Interrupted& e) {
    std::cerr << "opbench: " << e.what() << "\n";
    run::die_of(e.signal());
  } catch (const Error& e) {
    std::cerr << "opbench: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "opbench: unexpected error: " << e.what() << "\n";
  }
  return k_exit_usage;
}

} // namespace opbench::cli
