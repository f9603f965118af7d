// `opbench compare BASE NEW`: is NEW slower than BASE? Exit 1 when some case regressed.
#include <fmt/format.h>

#include <fstream>
#include <map>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "opbench/compare/compare.hpp"
#include "opbench/compare/gate.hpp"
#include "opbench/history/history.hpp"
#include "opbench/core/error.hpp"
#include "opbench/results/store.hpp"

namespace opbench::cli {
namespace {

struct CompareCommandOptions {
  std::string base;
  std::string candidate;
  compare::CompareOptions compare;
  std::string format = "md";
  std::string output = "-";
  std::string history;                 // --history DB: judge NEW against each case's history
  std::vector<std::string> confirm;    // --confirm FILE...: the candidates measured again
  std::vector<std::string> confirm_baseline;  // --confirm-baseline FILE...: and by the previous build
  std::string candidates_out;          // --candidates-out FILE: candidate case ids, one a line
  std::string looks_out;               // --looks-out FILE: the case ids that ask for a second look
  std::string second_look;             // --second-look FILE: those cases measured again tonight
  compare::GateOptions gate;
};

// `compare --history DB NEW [--confirm AGAIN]`: the nightly gate (compare/gate.hpp).
int run_gate(const CompareCommandOptions& options) {
  const std::string& tonight_path = options.candidate.empty() ? options.base : options.candidate;
  const results::ResultSet tonight = results::load_results(tonight_path);
  const history::History db(options.history);
  const std::int64_t self = db.find(tonight);
  const std::string date = tonight.context.value("date", std::string());
  std::vector<compare::GateInput> inputs;
  for (const auto& r : tonight.cases) {
    compare::GateInput in;
    in.case_id = r.c.case_id;
    // Every night judged with tonight's estimator, made again from its repetition medians where the
    // history kept them: a history recorded with another estimator (min, the default before
    // 2026-11-25) would otherwise shift against tonight by the estimators' difference.
    // Only nights that timed the same thing (GPU time, batch time, host time) with the case called
    // the same way: a call path that changed (typed <-> boxed) steps the time by what the boxed call
    // costs, which is opbench's, not the code's under test.
    const auto series = db.series(r.c.case_id, options.gate.window, self, date, r.timing.measures, r.timing.call_path);
    for (const auto& p : history::restated(series, r.estimate.estimator)) in.history.push_back(p.time);
    if (series.size() < options.gate.min_history) {
      std::map<std::string, std::size_t> others;
      for (const auto& p : db.series(r.c.case_id, options.gate.window, self, date, r.timing.measures)) {
        if (!p.call_path.empty() && p.call_path != r.timing.call_path) ++others[p.call_path];
      }
      for (const auto& [path, nights] : others) {
        in.left_out += fmt::format("{}{} night(s) called {}", in.left_out.empty() ? "" : ", ", nights, path);
      }
      if (!in.left_out.empty()) in.left_out = "called " + r.timing.call_path + " tonight; left out: " + in.left_out;
    }
    if (r.status == "ok") in.tonight = r.estimate.time;
    inputs.push_back(std::move(in));
  }
  compare::GateResult result = compare::judge(inputs, options.gate);
  if (!options.second_look.empty()) {
    // The same measurement again: its value is only comparable when it was made the same way.
    const results::ResultSet again = results::load_results(options.second_look);
    for (const char* key : {"estimator", "repetitions", "processes", "isolate"}) {
      const Json a = tonight.context.value(key, Json());
      const Json b = again.context.value(key, Json());
      if (a != b) {
        throw UsageError(fmt::format("--second-look {}: its {} is {}, tonight's ({}) is {}; the second look must "
                                     "be measured with tonight's settings",
                                     options.second_look, key, b.dump(), tonight_path, a.dump()));
      }
    }
    std::vector<std::string> ids;
    std::vector<double> values;
    for (const auto& r : again.cases) {
      if (r.status != "ok") continue;
      ids.push_back(r.c.case_id);
      values.push_back(r.estimate.time);
    }
    compare::second_look(result, ids, values);
  }
  if (!options.looks_out.empty()) {
    std::string lines;
    for (const auto& c : result.cases) {
      if (c.second_look) lines += c.case_id + "\n";
    }
    results::write_atomically(options.looks_out, lines);
  }
  if (!options.confirm_baseline.empty() && options.confirm.empty()) {
    throw UsageError("--confirm-baseline needs --confirm: tonight's build measured in the same A/B rounds");
  }
  if (!options.confirm.empty()) {
    // The confirmation's values of a case over all its files (A/B rounds come as several files):
    // every repetition median, and one value per process, tonight's estimator over that
    // process's repetitions (a file of one process: one value; of `run --isolate`: each
    // repetition was a process of its own).
    const std::string estimator = tonight.context.value("estimator", std::string("median"));
    struct Values {
      std::vector<double> medians;
      std::vector<double> processes;
    };
    auto pooled = [&estimator](const std::vector<std::string>& files) {
      std::map<std::string, Values> values;
      for (const auto& file : files) {
        const results::ResultSet set = results::load_results(file);
        const bool isolated = set.context.value("isolate", false);
        for (const auto& r : set.cases) {
          if (r.status != "ok" || r.timing.repetition_medians.empty()) continue;
          auto& v = values[r.c.case_id];
          const auto& m = r.timing.repetition_medians;
          v.medians.insert(v.medians.end(), m.begin(), m.end());
          if (isolated) {
            v.processes.insert(v.processes.end(), m.begin(), m.end());
          } else {
            v.processes.push_back(results::estimate_with(estimator, m));
          }
        }
      }
      return values;
    };
    const auto again = pooled(options.confirm);
    const auto previous = pooled(options.confirm_baseline);
    std::vector<std::string> ids;
    std::vector<double> values;
    std::vector<std::vector<double>> before, after;
    for (const auto& [id, v] : again) {
      ids.push_back(id);
      // Against the history: tonight's estimator over all the new repetition medians.
      values.push_back(results::estimate_with(estimator, v.medians));
      after.push_back(v.processes);
      const auto it = previous.find(id);
      before.push_back(it == previous.end() ? std::vector<double>{} : it->second.processes);
    }
    if (options.confirm_baseline.empty()) {
      compare::confirm(result, ids, values);
    } else {
      compare::confirm_ab(result, ids, before, after);
    }
  }
  if (!options.candidates_out.empty()) {
    std::string lines;
    for (const auto& c : result.cases) {
      if (c.candidate) lines += c.case_id + "\n";
    }
    results::write_atomically(options.candidates_out, lines);
  }
  std::ostringstream text;
  if (options.format == "json") {
    text << compare::to_json(result).dump(2) << "\n";
  } else if (options.format == "csv") {
    compare::write_gate_csv(result, text);
  } else {
    compare::write_gate_markdown(result, text);
  }
  if (options.output == "-") {
    std::cout << text.str();
  } else {
    results::write_atomically(options.output, text.str());
  }
  std::cerr << "opbench compare --history: " << result.second_looks() << " second look(s)"
            << (result.looked || result.second_looks() == 0 ? "" : " (not taken: measure them again and pass --second-look)")
            << ", " << result.candidates() << " candidate(s)"
            << (result.confirmed ? "" : " (not confirmed: measure them again and pass --confirm)") << "; "
            << result.count("slower") << " slower, " << result.count("faster") << " faster, "
            << result.count("same") << " same, " << result.count("unknown") << " unknown; " << result.blind()
            << " blind\n";
  return result.regressed() ? k_exit_case_failed : k_exit_ok;
}

int run_compare(const CompareCommandOptions& options, const GlobalOptions& global) {
  start_command(global);
  if (!options.history.empty()) {
    if (options.compare.adjust_speed) {
      throw UsageError("--adjust-speed goes with two files (BASE NEW); the gate confirms candidates by an A/B "
                       "of the two builds in the same hour instead (--confirm-baseline)");
    }
    return run_gate(options);
  }
  if (options.candidate.empty()) throw UsageError("compare needs BASE and NEW (or --history DB and NEW)");
  if (!options.confirm.empty() || !options.confirm_baseline.empty() || !options.second_look.empty()) {
    throw UsageError("--confirm, --confirm-baseline and --second-look go with --history");
  }
  const results::ResultSet base = results::load_results(options.base);
  const results::ResultSet candidate = results::load_results(options.candidate);
  compare::Comparison comparison = compare::compare_results(base, candidate, options.compare);
  comparison.base_path = options.base;
  comparison.new_path = options.candidate;
  std::ostringstream text;
  compare::write_comparison(comparison, options.format, text);
  if (options.output == "-") {
    std::cout << text.str();
  } else {
    results::write_atomically(options.output, text.str());
    for (const auto& note : comparison.notes) std::cerr << "opbench compare: note: " << note << "\n";
  }
  std::cerr << "opbench compare: " << comparison.count("slower") << " slower, "
            << comparison.count("faster") << " faster, " << comparison.count("same") << " same, "
            << comparison.count("unknown") << " unknown\n";
  return comparison.regressed() ? k_exit_case_failed : k_exit_ok;
}

}  // namespace

void add_compare_command(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<CompareCommandOptions>();
  auto* cmd = app.add_subcommand(
      "compare", "Compare two result files case by case; exit 1 when NEW is significantly slower");
  cmd->add_option("base", options->base, "Baseline result file (or journal); with --history: the new result")
      ->required()->check(CLI::ExistingFile);
  cmd->add_option("new", options->candidate, "New result file (or journal)")->check(CLI::ExistingFile);
  cmd->add_option("--history", options->history,
                  "Judge NEW against each case's last nights in this history (opbench history) instead of "
                  "against BASE: candidates, confirmation, minimum detectable effects")
      ->check(CLI::ExistingFile);
  cmd->add_option("--confirm", options->confirm,
                  "With --history: the candidates measured again (fresh processes); only what this confirms "
                  "is slower or faster (repeatable: the files' repetition medians are pooled)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--confirm-baseline", options->confirm_baseline,
                  "With --confirm: the same candidates measured by the previous build's binary in the same "
                  "interleaved rounds; the confirmation is then A/B between the two builds (repeatable)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--looks-out", options->looks_out,
                  "With --history: write the case ids that ask for a second look here, one a line (p under "
                  "--look-alpha tonight: measure them again with tonight's settings for --second-look)");
  cmd->add_option("--second-look", options->second_look,
                  "With --history: those cases measured again tonight (`run --from NEW --case ...`, the same "
                  "settings); a candidate is then judged on both values together")
      ->check(CLI::ExistingFile);
  cmd->add_option("--candidates-out", options->candidates_out,
                  "With --history: write the candidate case ids here, one a line (for the confirmation run)");
  auto& g = options->gate;
  cmd->add_option("--window", g.window, "With --history: nights used at most")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--min-history", g.min_history, "With --history: fewer nights give verdict unknown")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--candidate-alpha", g.alpha, "With --history: per-case level of a candidate")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  cmd->add_option("--look-alpha", g.look_alpha,
                  "With --history: tonight's p under this asks for a second look (--looks-out, --second-look)")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  cmd->add_option("--effect-floor", g.effect_floor, "With --history: relative change that counts at least")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--confirm-fdr", g.confirm_fdr, "With --history: Benjamini-Hochberg level over the confirmations")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  cmd->add_option("--threshold", options->compare.threshold,
                  "Relative change of the median that counts (0.05 = 5%)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--alpha", options->compare.alpha, "Significance level of the Mann-Whitney U test")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  cmd->add_option("--estimator", options->compare.estimator,
                  "Make both sides' times with this estimator from their repetition medians "
                  "(default: the one BASE was run with)")
      ->check(CLI::IsMember(results::estimator_names()));
  cmd->add_option("--speed-tolerance", options->compare.speed_tolerance,
                  "Note when the two runs' machine speeds (their fastest speed canaries) differ by more than this")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_flag("--adjust-speed", options->compare.adjust_speed,
               "Divide NEW's CPU times by the two runs' machine speed ratio (their fastest speed canaries, per "
               "thread count): ratios and verdicts then show the code's change without the host's (the times "
               "shown stay as measured)");
  cmd->add_option("--min-replicates", options->compare.min_replicates,
                  "Fewer repetition medians than this on either side: verdict unknown")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--format,-f", options->format, "Output format")
      ->check(CLI::IsMember(compare::comparison_formats()))->capture_default_str();
  cmd->add_option("--output,-o", options->output, "Output file; - for stdout")->capture_default_str();
  cmd->callback([options, &global] { global.exit_code = run_compare(*options, global); });
}

}  // namespace opbench::cli
