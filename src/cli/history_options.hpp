#pragma once
// `opbench history`'s options, shared by its subcommands (history_command.cpp) and `history show`
// (history_show.cpp). Internal to cli/.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"

namespace opbench::cli {

struct HistoryOptions {
  std::string db;
  std::vector<std::string> files;
  std::string label;
  std::string case_id;
  std::string format = "md";
  std::string estimator; // show: one estimator over every series (empty: each series' newest)
  std::size_t keep = 100;
  std::vector<std::string> accept_cases; // accept: the cases whose step is intended
  std::string reason;                    // accept: why
  // accept: the first run of the new level (none: the case's newest); exclude: the run
  std::optional<std::int64_t> run;
  std::int64_t undo = -1;                 // accept --undo ID
  std::string gate;                       // add --gate: the night's gate report (JSON)
  std::vector<std::string> exclude_cases; // exclude/include: these cases' values (none: the night)
  std::int64_t id = -1;                   // include --id
};

// `RESULTS_DIR/history.sqlite` unless --db says otherwise.
std::string db_path(const HistoryOptions& options, const GlobalOptions& global);

// `history show`: the runs, accepts and exclusions, or one case's trend (history_show.cpp).
int run_show(const HistoryOptions& options, const GlobalOptions& global);

} // namespace opbench::cli
