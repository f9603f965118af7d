// The nightly gate replayed on recorded noise (issue #12): how often identical code raises an
// alert, and how often a real step is caught.
//
//   build/bench/bench_gate_replay [--nights N] [--trials T] [--seed S] RESULT.json RESULT.json ...
//
// The result files are real runs of one suite on one machine (e.g. bench/aa.sh's run-K.json).
// A simulated night of a case takes one recorded run at random (the differences between
// processes) and draws that run's repetition medians with replacement (the noise inside a run),
// as many as it has; the night's value is their median, as `run` computes it. Per trial: N
// nights of history, then tonight, then a confirmation measurement (another independent night),
// judged with compare/gate.hpp's default rule.
// A/A: nothing changes; prints the candidates per night (share of cases) and the nights with a
// final alert (per 20 nights). Power: tonight and the confirmation multiplied by 1.05 and 1.10,
// for the cases whose gate noise is at most 2% (and at most 1%); prints the share caught.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "opbench/compare/gate.hpp"
#include "opbench/results/store.hpp"
#include "opbench/stats/statistics.hpp"

namespace {

using Runs = std::vector<std::vector<double>>;  // per recorded run: the case's repetition medians

double night(const Runs& runs, std::mt19937_64& random) {
  const auto& run = runs[random() % runs.size()];
  std::vector<double> draw;
  for (std::size_t i = 0; i < run.size(); ++i) draw.push_back(run[random() % run.size()]);
  return opbench::stats::median(draw);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t nights = 20, trials = 200;
  std::uint64_t seed = 1;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--nights" && i + 1 < argc) nights = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--trials" && i + 1 < argc) trials = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else files.push_back(a);
  }
  if (files.size() < 2) {
    std::fprintf(stderr, "usage: bench_gate_replay [--nights N] [--trials T] [--seed S] RESULT.json RESULT.json ...\n");
    return 2;
  }
  std::map<std::string, Runs> cases;
  for (const auto& f : files) {
    for (const auto& r : opbench::results::load_results(f).cases) {
      if (r.status == "ok" && !r.timing.repetition_medians.empty()) cases[r.c.case_id].push_back(r.timing.repetition_medians);
    }
  }
  std::vector<std::pair<std::string, Runs>> usable;
  for (auto& [id, runs] : cases) {
    if (runs.size() == files.size()) usable.emplace_back(id, runs);
  }
  std::printf("%zu cases in all %zu runs; %zu trials of %zu nights of history + tonight + confirmation\n",
              usable.size(), files.size(), trials, nights);
  const opbench::compare::GateOptions options;
  std::mt19937_64 random(seed);
  std::size_t alert_nights = 0, candidates = 0, max_candidates = 0;
  std::map<double, std::pair<std::size_t, std::size_t>> caught2, caught1;  // step -> (caught, tried)
  std::vector<double> noise;
  for (std::size_t t = 0; t < trials; ++t) {
    std::vector<opbench::compare::GateInput> inputs, stepped5, stepped10;
    std::vector<double> again;
    std::vector<std::string> ids;
    for (const auto& [id, runs] : usable) {
      opbench::compare::GateInput in;
      in.case_id = id;
      for (std::size_t n = 0; n < nights; ++n) in.history.push_back(night(runs, random));
      in.tonight = night(runs, random);
      ids.push_back(id);
      again.push_back(night(runs, random));
      inputs.push_back(in);
    }
    // A/A.
    auto aa = opbench::compare::judge(inputs, options);
    candidates += aa.candidates();
    max_candidates = std::max(max_candidates, aa.candidates());
    opbench::compare::confirm(aa, ids, again);
    if (aa.count("slower") + aa.count("faster") > 0) ++alert_nights;
    if (t == 0) {
      for (const auto& c : aa.cases) noise.push_back(c.noise);
    }
    // Power: the same nights, tonight and the confirmation stepped up.
    for (double step : {1.05, 1.10}) {
      auto stepped = inputs;
      std::vector<double> stepped_again = again;
      for (auto& in : stepped) *in.tonight *= step;
      for (auto& v : stepped_again) v *= step;
      auto r = opbench::compare::judge(stepped, options);
      opbench::compare::confirm(r, ids, stepped_again);
      for (std::size_t i = 0; i < r.cases.size(); ++i) {
        const double s = aa.cases[i].noise;
        const bool hit = r.cases[i].verdict == "slower";
        if (s <= 0.02) { caught2[step].second++; caught2[step].first += hit; }
        if (s <= 0.01) { caught1[step].second++; caught1[step].first += hit; }
      }
    }
  }
  std::sort(noise.begin(), noise.end());
  auto at = [&](double q) { return noise.empty() ? NAN : noise[static_cast<std::size_t>(q * (noise.size() - 1))]; };
  std::printf("gate noise (robust sd of log night values) over cases: median %.2f%%, p90 %.2f%%; <= 2%%: %zu of %zu\n",
              at(0.5) * 100, at(0.9) * 100,
              static_cast<std::size_t>(std::count_if(noise.begin(), noise.end(), [](double s) { return s <= 0.02; })),
              noise.size());
  std::printf("A/A: candidates per night %.2f on average (%.2f%% of cases), at most %zu (%.2f%%)\n",
              static_cast<double>(candidates) / trials, 100.0 * candidates / trials / usable.size(), max_candidates,
              100.0 * max_candidates / usable.size());
  std::printf("A/A: nights with a final alert: %zu of %zu = %.2f per 20 nights\n", alert_nights, trials,
              20.0 * alert_nights / trials);
  for (double step : {1.05, 1.10}) {
    const auto& a = caught2[step];
    const auto& b = caught1[step];
    std::printf("power, +%.0f%% step: caught %.1f%% of case-nights with noise <= 2%% (%zu), %.1f%% with noise <= 1%% (%zu)\n",
                (step - 1) * 100, 100.0 * a.first / std::max<std::size_t>(1, a.second), a.second,
                100.0 * b.first / std::max<std::size_t>(1, b.second), b.second);
  }
  return 0;
}
