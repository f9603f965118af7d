// `opbench ab`: is NEW slower than BASE, case by case? Both sides measured in the same hour,
// interleaved (ab/ab.hpp), judged pair by pair (ab/paired.hpp). Exit 1 when some case is slower,
// 3 when no case could be judged, 4 when none is slower but some call takes more memory.
#include <fmt/format.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "commands.hpp"
#include "opbench/ab/ab.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "run_options.hpp"

namespace opbench::cli {
namespace {

struct AbOptions {
  RunOptions run; // the selection and the measuring flags, as run takes them
  std::string base_bin;
  std::string new_bin;
  std::vector<std::string> base_libraries;
  std::vector<std::string> new_libraries;
  ab::AbSettings settings;
  std::string output; // the A/B file
  std::string report; // --report FILE: the verdicts in --format
  std::string format = "md";
};

// A side's binary as an absolute path (the A/B file names it); none given: this opbench.
std::string side_binary(const std::string& given) {
  if (!given.empty())
    return core::absolute_path(given);
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string("/proc/self/exe");
}

std::vector<std::string> absolute_all(std::vector<std::string> paths) {
  for (auto& p : paths)
    p = core::absolute_path(p);
  return paths;
}

void append_step_summary(const std::string& markdown) {
  const char* summary = std::getenv("GITHUB_STEP_SUMMARY");
  if (summary == nullptr || *summary == '\0')
    return;
  std::ofstream out(summary, std::ios::app);
  out << markdown;
  if (!out)
    std::cerr << "opbench ab: could not append to $GITHUB_STEP_SUMMARY (" << summary << ")\n";
}

int run_ab(AbOptions& options, GlobalOptions& global) {
  if (options.base_bin.empty() && options.new_bin.empty() && options.base_libraries.empty() &&
      options.new_libraries.empty()) {
    throw UsageError("ab needs two sides: --base-bin and --new-bin (two opbench builds), or "
                     "--base-library and --new-library (two builds of an operator library)");
  }
  if (options.base_libraries.size() != options.new_libraries.size()) {
    throw UsageError("--base-library and --new-library go in pairs (the base and new builds of "
                     "each library, in the same order)");
  }
  ab::AbSettings& s = options.settings;
  const std::vector<std::string> shared = absolute_all(global.libraries);
  s.base = {side_binary(options.base_bin), shared, ""};
  s.new_side = {side_binary(options.new_bin), shared, ""};
  for (const auto& l : absolute_all(options.base_libraries))
    s.base.libraries.push_back(l);
  for (const auto& l : absolute_all(options.new_libraries))
    s.new_side.libraries.push_back(l);
  // This process plans with the new side's libraries (the same operator names as the base's).
  for (const auto& l : absolute_all(options.new_libraries))
    global.libraries.push_back(l);
  start_command(global);
  const std::string output =
      options.output.empty()
          ? core::join_path(results_dir(global), fmt::format("ab-{}.json", ::getpid()))
          : options.output;
  if (s.work_dir.empty())
    s.work_dir = output + ".runs";
  core::create_directories(s.work_dir);
  ab::check_side(s.base, options.base_bin.empty() ? "--base-library" : "--base-bin", s.work_dir);
  ab::check_side(s.new_side, options.new_bin.empty() ? "--new-library" : "--new-bin", s.work_dir);
  s.measuring = options.run.settings;
  s.memory = !options.run.no_memory;
  s.seed = options.run.settings.seed;
  const std::vector<results::Case> cases = select_cases(options.run, global);
  if (cases.empty())
    throw UsageError("no case matches the filters (opbench list shows what can run)");
  std::cerr << fmt::format(
      "opbench ab: {} case(s), {} round(s); base {}, new {}; side runs in {}\n", cases.size(),
      s.rounds, s.base.version, s.new_side.version, s.work_dir);
  ab::AbObserver observer;
  observer.side_done = [&](const ab::AbResult&, const ab::SideRun& run, double elapsed) {
    std::cerr << fmt::format("opbench ab: round {}/{}, block {}, {} side{} [{:.1f} s]\n", run.round,
                             s.rounds, run.block, run.side, run.how.empty() ? "" : ": " + run.how,
                             elapsed);
  };
  observer.round_done = [&](const ab::AbResult& r, std::size_t decided, std::size_t measured,
                            double elapsed) {
    std::cerr << fmt::format("opbench ab: round {} done: it measured {} case(s); {} of {} "
                             "decided [{:.1f} s{}]\n",
                             r.rounds_done, measured, decided, cases.size(), elapsed,
                             s.budget > 0 ? fmt::format(", {:.0f} s of the budget left",
                                                        std::max(0.0, s.budget - elapsed))
                                          : "");
  };
  observer.note = [](const std::string& line) { std::cerr << "opbench ab: " << line << "\n"; };
  const ab::AbResult result = ab::run_ab(cases, s, output, global.command_line, observer);
  if (!result.ended.empty())
    std::cerr << "opbench ab: ended after round " << result.rounds_done << ": " << result.ended
              << "\n";
  for (const auto& note : result.notes)
    std::cerr << "opbench ab: note: " << note << "\n";
  std::ostringstream text;
  core::write_as(ab::ab_formats(), options.format, result, text);
  if (options.report.empty() || options.report == "-")
    std::cout << text.str();
  else
    core::write_atomically(options.report, text.str());
  std::ostringstream md;
  ab::write_markdown(result, md);
  append_step_summary(md.str());
  const results::VerdictCounts n = result.counts();
  std::cerr << fmt::format("opbench ab: {} slower, {} faster, {} same, {} unknown; memory: {} "
                           "more, {} less; A/B file: {}\n",
                           n.slower, n.faster, n.same, n.unknown, n.more_memory, n.less_memory,
                           output);
  if (n.regressed())
    return k_exit_case_failed;
  if (n.more_memory_seen())
    return k_exit_more_memory;
  return n.nothing_judged() ? k_exit_nothing_judged : k_exit_ok;
}

} // namespace

void add_ab_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<AbOptions>();
  auto* cmd = app.add_subcommand(
      "ab", "Measure two builds side by side, interleaved in rounds, and judge each case on its "
            "paired rounds; exit 1 when NEW is slower (docs/ab.md)");
  cmd->add_option("--base-bin", options->base_bin, "The base side's opbench (default: this one)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--new-bin", options->new_bin, "The new side's opbench (default: this one)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--base-library", options->base_libraries,
                  "An operator library only the base side's processes load (repeatable)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--new-library", options->new_libraries,
                  "The new build of that library, with the same operator names (repeatable)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--rounds", options->settings.rounds,
                  "Rounds at most: in each, every undecided case is measured by a fresh process "
                  "of each side")
      ->check(in_range(run::Range{2, 1000, true}))
      ->capture_default_str();
  cmd->add_option("--stop-after", options->settings.stop_after,
                  "A case found the same after this many rounds is measured no more, the rounds "
                  "going to the others (slower and faster ones are measured in every round); 0: "
                  "every case every round")
      ->check(in_range(run::Range{0, 1000, true}))
      ->capture_default_str();
  cmd->add_option("--precision", options->settings.precision,
                  "A case found the same stops early only once the smallest change it could "
                  "have seen is at most this (relative: 0.03 = 3%); 0: as soon as it is found "
                  "the same")
      ->check(in_range(run::Range{0, 1, false}))
      ->capture_default_str();
  cmd->add_option("--budget", options->settings.budget,
                  "Start no round that would end past this much time, e.g. 10m, 600s, 1h; 0: "
                  "none")
      ->transform(
          CLI::AsNumberWithUnit(std::map<std::string, double>{{"s", 1}, {"m", 60}, {"h", 3600}},
                                CLI::AsNumberWithUnit::CASE_SENSITIVE))
      ->check(in_range(run::Range{0, 7 * 24 * 3600, false}));
  cmd->add_option("--schedule", options->settings.schedule,
                  "How a block's two side runs share the machine: interleaved (one after the "
                  "other, the order drawn) or duet (both at once, each on half of the CPUs)")
      ->transform(CLI::CheckedTransformer(core::names_to<ab::Schedule>()))
      ->default_str(core::name_of(options->settings.schedule));
  cmd->add_option("--side-repetitions", options->settings.side_repetitions,
                  "Repetitions of each case in a side run; the round's time is the fastest one's")
      ->check(in_range(run::Range{1, 100, true}))
      ->capture_default_str();
  cmd->add_option("--block-cases", options->settings.block_cases,
                  "Cases per side run (a fresh process); 0: all cases in one")
      ->check(in_range(run::Range{0, 1e6, true}))
      ->capture_default_str();
  cmd->add_option("--threshold", options->settings.verdict.threshold,
                  "Relative change of a case's time that matters (0.05 = 5%)")
      ->check(in_range(limits::relative))
      ->capture_default_str();
  cmd->add_option("--fdr", options->settings.verdict.fdr,
                  "False-discovery rate of the slower/faster verdicts over all cases")
      ->check(in_range(run::Range{1e-6, 0.5, false}))
      ->capture_default_str();
  cmd->add_option("--work-dir", options->settings.work_dir,
                  "Where the side runs' plans, results and logs go (default: OUTPUT.runs)");
  cmd->add_option("--output,-o", options->output,
                  "The A/B file: both sides' times per round and the verdicts (default: "
                  "RESULTS_DIR/ab-PID.json)");
  cmd->add_option("--format", options->format, "The report's format: md, json, csv, junit or html")
      ->check(CLI::IsMember(core::format_names(ab::ab_formats())))
      ->capture_default_str();
  cmd->add_option("--report", options->report, "Write the report here instead of stdout");
  add_selection_flags(*cmd, options->run, global);
  add_measuring_flags(*cmd, options->run.settings);
  for (const char* own :
       {"--repetitions", "--processes", "--interval-target", "--min-processes", "--isolate",
        "--placement", "--process-label", "--hold-file", "--run-repetitions", "--resume",
        "--calibration", "--trace", "--interleave", "--estimator"})
    cmd->remove_option(cmd->get_option(own));
  cmd->add_flag("--no-memory", options->run.no_memory, "Skip the untimed memory probe");
  cmd->callback([options, &global] { global.exit_code = run_ab(*options, global); });
}

} // namespace opbench::cli
