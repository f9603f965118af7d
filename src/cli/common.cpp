#include <spdlog/spdlog.h>

#include <algorithm>

#include "commands.hpp"
#include "opbench/catalog/libraries.hpp"
#include "opbench/config/loader.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/machine/device_support.hpp"
#include "opbench/plan/select.hpp"

namespace opbench::cli {

void start_command(const GlobalOptions& global) {
  spdlog::set_level(spdlog::level::from_str(global.log_level));
  for (const auto& path : global.libraries) {
    const auto& library = catalog::load_library(path, "--load-library");
    spdlog::info("loaded {}: {} operator(s)", library.path, library.operators.size());
    if (!library.overrides.empty()) {
      spdlog::warn("{} replaces kernels of operators loaded before it: {}; their cases run its "
                   "code and record it (case.library)",
                   library.path, core::join(library.overrides, ", "));
    }
  }
}

void add_library_option(CLI::App& command, GlobalOptions& global) {
  command.add_option("--load-library", global.libraries,
                     "Load an operator library (a TORCH_LIBRARY extension's .so) first; its "
                     "operators then bind and run like ATen's, e.g. myops::fast_gelu "
                     "(repeatable; docs/custom-ops.md)");
}

catalog::Catalog load_catalog_for(const std::vector<std::string>& files,
                                  const GlobalOptions& global, bool samples) {
  return plan::load_catalog(files, config_dir(global), samples);
}

CLI::Validator in_range(const run::Range& range) {
  return CLI::Validator(
      [range](std::string& text) -> std::string {
        return run::parse_in_range(text, range)
                   ? ""
                   : "must be " + run::describe(range) + ", got '" + text + "'";
      },
      run::describe(range));
}

CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return run::parse_seed(text)
                   ? ""
                   : "must be a whole number from 0 to 18446744073709551615, got '" + text + "'";
      },
      "0 to 2^64-1");
}

CLI::Option* add_kind_option(CLI::App& command, std::optional<results::Kind>& kind,
                             const std::string& description) {
  return command
      .add_option_function<std::string>(
          "--kind",
          [&kind](const std::string& name) {
            kind = core::parse_name_or_throw<results::Kind>(name, "kind", "--kind");
          },
          description)
      ->check(
          CLI::IsMember({core::name_of(results::Kind::op), core::name_of(results::Kind::sample)}));
}

std::vector<int> threads_axis(const std::vector<int>& given) {
  if (given.empty())
    return {machine::default_threads()};
  std::vector<int> axis;
  for (int t : given) {
    if (!run::in_range(t, run::limits::threads)) {
      throw UsageError("--threads takes thread counts from 1 to " +
                       std::to_string(static_cast<int>(run::limits::threads.high)) +
                       ", or 0 for LibTorch's default; got " + std::to_string(t));
    }
    const int threads = t == 0 ? machine::libtorch_threads() : t;
    if (std::find(axis.begin(), axis.end(), threads) == axis.end())
      axis.push_back(threads);
  }
  return axis;
}

} // namespace opbench::cli
