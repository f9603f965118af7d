// The nightly gate replayed on recorded noise (issue #12): how often identical code raises an
// alert, and how often a real step is caught (compare/gate_replay.hpp says how nights are made).
//
//   build/bench/bench_gate_replay [--nights N] [--trials T] [--seed S] [--estimator
//   fastest-third|min|median]
//                                 [--processes P] [--repetitions R] [--ab-rounds K]
//                                 [--candidate-alpha A] [--effect-floor F] [--look-alpha L]
//                                 [--no-second-look] RESULT.json ...
//
// The result files are real runs of one suite on one machine (e.g. bench/aa.sh's run-K.json and
// baseline-run-K.json); each is split into the processes that measured it (a run of
// `--processes 2` holds two), and the replay draws processes from all of them.
// A night is made as `run --processes P --repetitions R` makes it (default: one process, the
// first recorded process's repetitions); --ab-rounds K confirms A/B against the previous build as
// scripts/nightly.sh does with OPBENCH_BASELINE_BIN, instead of against the history.
// --candidate-alpha,
// --effect-floor and --look-alpha set the gate's (compare --history --candidate-alpha, ...).
// Tonight's cases under --look-alpha get a second look, as in scripts/nightly.sh; --no-second-look:
// none. A/A: candidates per night (share of cases), nights with a final alert (per 20 nights), and
// the cases those alerts named. Power: tonight and its confirmation multiplied by 1.05 and 1.10,
// over the cases whose gate noise is at most 2% (and 1%), and over those whose between-process
// spread is at most 2% (issue #12's population): the share of case-nights caught as slower.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "opbench/results/store.hpp"
#include "replay/gate_replay.hpp"

int main(int argc, char** argv) {
  opbench::replay::ReplayOptions options;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--nights" && i + 1 < argc)
      options.nights = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--trials" && i + 1 < argc)
      options.trials = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--seed" && i + 1 < argc)
      options.seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--estimator" && i + 1 < argc)
      options.estimator = argv[++i];
    else if (a == "--processes" && i + 1 < argc)
      options.processes = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--repetitions" && i + 1 < argc)
      options.repetitions = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--ab-rounds" && i + 1 < argc)
      options.ab_rounds = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--candidate-alpha" && i + 1 < argc)
      options.gate.alpha = std::strtod(argv[++i], nullptr);
    else if (a == "--effect-floor" && i + 1 < argc)
      options.gate.effect_floor = std::strtod(argv[++i], nullptr);
    else if (a == "--look-alpha" && i + 1 < argc)
      options.gate.look_alpha = std::strtod(argv[++i], nullptr);
    else if (a == "--no-second-look")
      options.second_look = false;
    else
      files.push_back(a);
  }
  if (files.size() < 2) {
    std::fprintf(stderr,
                 "usage: bench_gate_replay [--nights N] [--trials T] [--seed S] [--estimator "
                 "fastest-third|min|median] "
                 "[--processes P] [--repetitions R] [--ab-rounds K] [--candidate-alpha A] "
                 "[--effect-floor F] [--look-alpha L] [--no-second-look] RESULT.json ...\n");
    return 2;
  }
  opbench::replay::RecordedProcesses recorded;
  for (const auto& f : files) {
    const auto set = opbench::results::load_results(f);
    for (const auto& r : set.cases) {
      if (r.status != opbench::results::Status::ok)
        continue;
      for (auto& process : opbench::compare::recorded_processes(set.context, r.timing)) {
        recorded[r.c.case_id].push_back(std::move(process));
      }
    }
  }
  const auto r = opbench::replay::replay(recorded, options);
  std::vector<double> noise = r.noise;
  std::sort(noise.begin(), noise.end());
  auto at = [&](double q) {
    return noise.empty() ? 0.0 : noise[static_cast<std::size_t>(q * (noise.size() - 1))];
  };
  const auto quiet = std::count_if(noise.begin(), noise.end(), [](double s) { return s <= 0.02; });
  std::size_t processes = 0;
  for (const auto& [id, recorded_case] : recorded)
    processes = std::max(processes, recorded_case.size());
  std::printf("%zu cases recorded in all %zu runs (%zu processes); %zu trials of %zu nights of "
              "history + tonight + "
              "confirmation\n",
              r.cases, files.size(), processes, r.trials, options.nights);
  std::printf("gate noise (robust sd of log night values): median %.2f%%, p90 %.2f%%; %ld of %zu "
              "cases <= 2%%\n",
              at(0.5) * 100, at(0.9) * 100, static_cast<long>(quiet), noise.size());
  std::printf("A/A: second looks per night %.2f on average (%.2f%% of cases)%s\n",
              static_cast<double>(r.second_looks) / r.trials,
              100.0 * r.second_looks / r.trials / r.cases,
              options.second_look ? "" : ", not taken (--no-second-look)");
  std::printf("A/A: candidates per night %.2f on average (%.2f%% of cases), at most %zu (%.2f%%)\n",
              static_cast<double>(r.candidates) / r.trials,
              100.0 * r.candidates / r.trials / r.cases, r.max_candidates,
              100.0 * r.max_candidates / r.cases);
  std::printf("A/A: nights with candidates on more than 1%% of the cases: %zu of %zu = %.2f per 20 "
              "nights\n",
              r.nights_over_1pct, r.trials, 20.0 * r.nights_over_1pct / r.trials);
  std::printf("A/A: nights with a final alert: %zu of %zu = %.2f per 20 nights\n", r.alert_nights,
              r.trials, 20.0 * r.alert_nights / r.trials);
  std::vector<std::pair<std::size_t, std::string>> alerted;
  for (const auto& [what, n] : r.false_alerts)
    alerted.emplace_back(n, what);
  std::sort(alerted.rbegin(), alerted.rend());
  for (std::size_t i = 0; i < alerted.size() && i < 10; ++i) {
    std::printf("  false alert in %zu trial(s): %s\n", alerted[i].first, alerted[i].second.c_str());
  }
  const auto steady = std::count_if(r.process_spread.begin(), r.process_spread.end(),
                                    [](double s) { return s <= 0.02; });
  std::printf(
      "between-process spread (robust sd of log per-process values): %ld of %zu cases <= 2%%\n",
      static_cast<long>(steady), r.process_spread.size());
  for (const auto& p : r.power) {
    std::printf("power, +%.0f%% step: caught %.1f%% of case-nights with noise <= 2%% (%zu), %.1f%% "
                "with noise <= 1%% (%zu), "
                "%.1f%% with between-process spread <= 2%% (%zu)\n",
                (p.step - 1) * 100, 100.0 * p.caught_2 / std::max<std::size_t>(1, p.tried_2),
                p.tried_2, 100.0 * p.caught_1 / std::max<std::size_t>(1, p.tried_1), p.tried_1,
                100.0 * p.caught_spread_2 / std::max<std::size_t>(1, p.tried_spread_2),
                p.tried_spread_2);
  }
  return 0;
}
