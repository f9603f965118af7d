// `opbench compare BASE NEW`: is NEW slower than BASE? Exit 1 when some case regressed.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "commands.hpp"
#include "opbench/compare/compare.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/gate/nightly.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/store.hpp"

namespace opbench::cli {
namespace {

struct CompareCommandOptions {
  std::string base;
  std::string candidate;
  compare::CompareOptions compare;
  std::string format = "md";
  std::string output = "-";
  std::string history;              // --history DB: judge NEW against each case's history
  std::vector<std::string> confirm; // --confirm FILE...: the candidates measured again
  std::string confirm_ab;           // --confirm-ab FILE: or measured A/B (opbench ab's file)
  std::string candidates_out;       // --candidates-out FILE: candidate case ids, one a line
  std::string looks_out;            // --looks-out FILE: the case ids that ask for a second look
  std::string second_look;          // --second-look FILE: those cases measured again tonight
  gate::GateOptions gate;
  std::vector<std::string> fail_on = {"time", "memory"}; // what fails the exit code
  std::string thresholds;                                // --thresholds FILE
  bool fails_on(const std::string& what) const {
    return std::find(fail_on.begin(), fail_on.end(), what) != fail_on.end();
  }
};

// `compare --history DB NEW [--confirm AGAIN]`: the nightly gate (gate/nightly.hpp); this writes
// what the gate decided where the options ask.
int run_gate(const CompareCommandOptions& options) {
  gate::Night night;
  night.tonight = options.candidate.empty() ? options.base : options.candidate;
  night.history = options.history;
  night.second_look = options.second_look;
  night.confirm = options.confirm;
  night.confirm_ab = options.confirm_ab;
  if (!options.thresholds.empty())
    night.thresholds = results::read_threshold_rules(options.thresholds);
  const gate::GateResult result = gate::judge_night(night, options.gate);
  if (!options.looks_out.empty()) {
    std::string lines;
    for (const auto& c : result.cases) {
      if (c.second_look)
        lines += c.case_id + "\n";
    }
    core::write_atomically(options.looks_out, lines);
  }
  if (!options.candidates_out.empty()) {
    std::string lines;
    for (const auto& c : result.cases) {
      if (c.candidate)
        lines += c.case_id + "\n";
    }
    core::write_atomically(options.candidates_out, lines);
  }
  std::ostringstream text;
  core::write_as(gate::gate_formats(), options.format, result, text);
  if (options.output == "-") {
    std::cout << text.str();
  } else {
    core::write_atomically(options.output, text.str());
  }
  std::cerr << "opbench compare --history: " << result.second_looks() << " second look(s)"
            << (result.looked || result.second_looks() == 0
                    ? ""
                    : " (not taken: measure them again and pass --second-look)")
            << ", " << result.candidates() << " candidate(s)"
            << (result.confirmed ? "" : " (not confirmed: measure them again and pass --confirm)")
            << "; " << result.count(results::Verdict::slower) << " slower, "
            << result.count(results::Verdict::faster) << " faster, "
            << result.count(results::Verdict::same) << " same, "
            << result.count(results::Verdict::unknown) << " unknown; " << result.blind()
            << " blind; " << result.count(results::MemoryVerdict::more) << " more memory\n";
  if (options.fails_on("time") && result.regressed())
    return k_exit_case_failed;
  return options.fails_on("memory") && result.more_memory() ? k_exit_more_memory : k_exit_ok;
}

int run_compare(const CompareCommandOptions& options, const GlobalOptions& global) {
  start_command(global);
  if (!options.history.empty()) {
    if (options.compare.adjust_speed) {
      throw UsageError(
          "--adjust-speed goes with two files (BASE NEW); the gate confirms candidates by an A/B "
          "of the two builds in the same hour instead (--confirm-ab)");
    }
    return run_gate(options);
  }
  if (options.candidate.empty())
    throw UsageError("compare needs BASE and NEW (or --history DB and NEW)");
  if (!options.confirm.empty() || !options.confirm_ab.empty() || !options.second_look.empty()) {
    throw UsageError("--confirm, --confirm-ab and --second-look go with --history");
  }
  compare::CompareOptions compare_options = options.compare;
  if (!options.thresholds.empty())
    compare_options.thresholds = results::read_threshold_rules(options.thresholds);
  const results::ResultSet base = results::load_results(options.base);
  const results::ResultSet candidate = results::load_results(options.candidate);
  compare::Comparison comparison = compare::compare_results(base, candidate, compare_options);
  comparison.base_path = options.base;
  comparison.new_path = options.candidate;
  std::ostringstream text;
  core::write_as(compare::comparison_formats(), options.format, comparison, text);
  if (options.output == "-") {
    std::cout << text.str();
  } else {
    core::write_atomically(options.output, text.str());
    for (const auto& note : comparison.notes)
      std::cerr << "opbench compare: note: " << note << "\n";
  }
  std::cerr << "opbench compare: " << comparison.count(results::Verdict::slower) << " slower, "
            << comparison.count(results::Verdict::faster) << " faster, "
            << comparison.count(results::Verdict::same) << " same, "
            << comparison.count(results::Verdict::unknown)
            << " unknown; memory: " << comparison.count(results::MemoryVerdict::more) << " more, "
            << comparison.count(results::MemoryVerdict::less) << " less\n";
  if (options.fails_on("time") && comparison.regressed())
    return k_exit_case_failed;
  if (options.fails_on("memory") && comparison.more_memory()) {
    std::cerr << "opbench compare: some case's call takes more memory: exit " << k_exit_more_memory
              << "\n";
    return k_exit_more_memory;
  }
  if (comparison.nothing_judged()) {
    std::cerr << "opbench compare: no case could be judged (every one is unknown; the reasons "
                 "are in the table): exit "
              << k_exit_nothing_judged << "\n";
    return k_exit_nothing_judged;
  }
  return k_exit_ok;
}

} // namespace

void add_compare_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<CompareCommandOptions>();
  auto* cmd = app.add_subcommand(
      "compare", "Compare two result files case by case; exit 1 when NEW is significantly slower");
  cmd->add_option("base", options->base,
                  "Baseline result file (or journal); with --history: the new result")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("new", options->candidate, "New result file (or journal)")
      ->check(CLI::ExistingFile);
  cmd->add_option(
         "--history", options->history,
         "Judge NEW against each case's last nights in this history (opbench history) instead of "
         "against BASE: candidates, confirmation, minimum detectable effects")
      ->check(CLI::ExistingFile);
  cmd->add_option(
         "--confirm", options->confirm,
         "With --history: the candidates measured again (fresh processes); only what this confirms "
         "is slower or faster (repeatable: the files' repetition medians are pooled)")
      ->check(CLI::ExistingFile);
  cmd->add_option(
         "--confirm-ab", options->confirm_ab,
         "With --history, instead of --confirm: `opbench ab`'s file of the candidates, the "
         "previous build (base) against tonight's (new); only a change its paired rounds "
         "show is slower or faster")
      ->check(CLI::ExistingFile);
  cmd->add_option(
      "--looks-out", options->looks_out,
      "With --history: write the case ids that ask for a second look here, one a line (p under "
      "--look-alpha tonight: measure them again with tonight's settings for --second-look)");
  cmd->add_option("--second-look", options->second_look,
                  "With --history: those cases measured again tonight (`run --from NEW --case "
                  "...`, the same "
                  "settings); a candidate is then judged on both values together")
      ->check(CLI::ExistingFile);
  cmd->add_option(
      "--candidates-out", options->candidates_out,
      "With --history: write the candidate case ids here, one a line (for the confirmation run)");
  auto& g = options->gate;
  cmd->add_option("--window", g.window, "With --history: nights used at most")
      ->check(in_range(limits::nights))
      ->capture_default_str();
  cmd->add_option("--min-history", g.min_history,
                  "With --history: fewer nights give verdict unknown")
      ->check(in_range(limits::nights))
      ->capture_default_str();
  cmd->add_option("--candidate-alpha", g.alpha, "With --history: per-case level of a candidate")
      ->check(in_range(limits::probability))
      ->capture_default_str();
  cmd->add_option("--look-alpha", g.look_alpha,
                  "With --history: tonight's p under this asks for a second look (--looks-out, "
                  "--second-look)")
      ->check(in_range(limits::probability))
      ->capture_default_str();
  cmd->add_option("--effect-floor", g.effect_floor,
                  "With --history: relative change that counts at least")
      ->check(in_range(limits::relative))
      ->capture_default_str();
  cmd->add_option("--confirm-fdr", g.confirm_fdr,
                  "With --history: Benjamini-Hochberg level over the confirmations")
      ->check(in_range(limits::probability))
      ->capture_default_str();
  cmd->add_option("--threshold", options->compare.threshold,
                  "Relative change of the median that counts (0.05 = 5%)")
      ->check(in_range(limits::relative))
      ->capture_default_str();
  cmd->add_option("--alpha", options->compare.alpha,
                  "Significance level of the Mann-Whitney U test")
      ->check(in_range(limits::probability))
      ->capture_default_str();
  cmd->add_option("--estimator", options->compare.estimator,
                  "Make both sides' times with this estimator from their repetition medians "
                  "(default: the one BASE was run with)")
      ->check(CLI::IsMember(results::estimator_names()));
  cmd->add_option("--speed-tolerance", options->compare.speed_tolerance,
                  "Note when the two runs' machine speeds (their fastest speed canaries) differ by "
                  "more than this")
      ->check(in_range(limits::relative))
      ->capture_default_str();
  cmd->add_flag("--adjust-speed", options->compare.adjust_speed,
                "Divide NEW's CPU times by the two runs' machine speed ratio (their fastest speed "
                "canaries, per "
                "thread count): ratios and verdicts then show the code's change without the host's "
                "(the times "
                "shown stay as measured)");
  cmd->add_option("--min-replicates", options->compare.min_replicates,
                  "Fewer repetition medians than this on either side: verdict unknown")
      ->check(in_range(limits::replicates))
      ->capture_default_str();
  cmd->add_option("--format,-f", options->format,
                  "Output format: md, json, csv or junit (JUnit XML for CI: slower fails, unknown "
                  "is skipped)")
      ->check(CLI::IsMember(core::format_names(compare::comparison_formats())))
      ->capture_default_str();
  cmd->add_option("--output,-o", options->output, "Output file; - for stdout")
      ->capture_default_str();
  cmd->add_option("--thresholds", options->thresholds,
                  "Per-case thresholds: a file of rules `case|op|tag NAME THRESHOLD`, one a line "
                  "(e.g. `tag noisy 0.10`); the most specific rule of a case replaces --threshold "
                  "(with --history: --effect-floor) for it")
      ->check(CLI::ExistingFile);
  cmd->add_option("--fail-on", options->fail_on,
                  "What makes the exit code non-zero: time (a case `slower`: exit 1), memory (a "
                  "case's call takes `more memory`: exit 4, when no case is slower), or both")
      ->delimiter(',')
      ->check(CLI::IsMember({"time", "memory"}))
      ->capture_default_str();
  cmd->callback([options, &global] { global.exit_code = run_compare(*options, global); });
}

} // namespace opbench::cli
