#pragma once
// Shared by the subcommands: global options, and one registration function per subcommand file.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "opbench/catalog/catalog.hpp"
#include "opbench/run/settings.hpp"

namespace opbench::cli {

struct GlobalOptions {
  std::string log_level = "warn";
  std::string config_dir;             // "" means $OPBENCH_CONFIG_DIR, else the built-in default
  std::string results_dir;            // "" means $OPBENCH_RESULTS_DIR, else ./results
  std::string command_line;           // the whole command line, for the results context
  std::vector<std::string> libraries; // --load-library, loaded by start_command
  int exit_code = 0;                  // set by the subcommand that ran
};

// Applies the global options at the start of a subcommand: the log level, and loads the
// operator libraries of --load-library (throws ConfigError naming the one that does not load).
void start_command(const GlobalOptions& global);
// `opbench run`'s measuring flags (run_flags.cpp), bound to `settings`.
void add_measuring_flags(CLI::App& command, run::RunSettings& settings);

// `--load-library PATH` (repeatable) of the subcommands that bind operators: run, list, show,
// extract.
void add_library_option(CLI::App& command, GlobalOptions& global);
// The config directory in force.
std::string config_dir(const GlobalOptions& global);
// The results directory in force.
std::string results_dir(const GlobalOptions& global);
// Loads `files`, or every config of the config directory and the built-in samples when `files`
// is empty (with `samples`, the samples in any case).
catalog::Catalog load_catalog_for(const std::vector<std::string>& files,
                                  const GlobalOptions& global, bool samples = false);

// The `--threads` axis of run and calibrate: `given`, 0 standing for LibTorch's default (its
// thread count as it starts), or machine::default_threads() when nothing is given. Throws
// UsageError for a negative count.
std::vector<int> threads_axis(const std::vector<int>& given);

// A value in `range` (run/settings.hpp's limits, or a command's own): NaN, infinities, text and
// numbers past the range are refused at parsing, naming the option and the range.
CLI::Validator in_range(const run::Range& range);
// The ranges of the other subcommands' numeric options (run's are run::limits).
namespace limits {
inline constexpr run::Range probability{0, 1, false}; // --alpha, --candidate-alpha, --confirm-fdr
inline constexpr run::Range relative{0, 100, false};  // --threshold, --effect-floor: 0.05 = 5%
inline constexpr run::Range nights{1, 100000, true};  // --window, --min-history
inline constexpr run::Range replicates{1, 100000, true}; // --min-replicates
inline constexpr run::Range runs_kept{1, 1e9, true};     // history prune --keep
inline constexpr run::Range buffer_mib{1, 65536, true};  // calibrate --buffer-mib
inline constexpr run::Range gemm_n{1, 65536, true};      // calibrate --gemm-n
inline constexpr run::Range seconds{1e-3, 3600, false};  // calibrate --seconds
} // namespace limits

// A seed: a whole number from 0 to 2^64-1 written in digits (not -1, 1e23 or 2^64, which the
// parser would wrap or round).
CLI::Validator seed_value();

// `--kind op|sample` (list, show): `kind` is left empty when the option is not given.
CLI::Option* add_kind_option(CLI::App& command, std::optional<results::Kind>& kind,
                             const std::string& description);

void add_run_command(CLI::App& app, GlobalOptions& global);
void add_list_command(CLI::App& app, GlobalOptions& global);
void add_list_tags_command(CLI::App& app, GlobalOptions& global);
void add_show_command(CLI::App& app, GlobalOptions& global);
void add_export_command(CLI::App& app, GlobalOptions& global);
void add_compare_command(CLI::App& app, GlobalOptions& global);
void add_history_command(CLI::App& app, GlobalOptions& global);
void add_merge_command(CLI::App& app, GlobalOptions& global);
void add_calibrate_command(CLI::App& app, GlobalOptions& global);
void add_extract_command(CLI::App& app, GlobalOptions& global);
void add_ab_command(CLI::App& app, GlobalOptions& global);
void add_replay_command(CLI::App& app, GlobalOptions& global);

} // namespace opbench::cli
