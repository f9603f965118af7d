#include "opbench/compare/gate_replay.hpp"

#include <algorithm>
#include <random>

#include "opbench/results/result_set.hpp"

namespace opbench::compare {
namespace {

double night(const std::vector<std::vector<double>>& runs, const std::string& estimator, std::mt19937_64& random) {
  const auto& run = runs[random() % runs.size()];
  std::vector<double> draw;
  for (std::size_t i = 0; i < run.size(); ++i) draw.push_back(run[random() % run.size()]);
  return results::estimate_with(estimator, draw);
}

// The confirmation as scripts/nightly.sh takes it (run --isolate): every repetition in a fresh
// process, so each of its repetition medians comes from a recorded run of its own.
double isolated_night(const std::vector<std::vector<double>>& runs, const std::string& estimator,
                      std::mt19937_64& random) {
  std::vector<double> draw;
  for (std::size_t i = 0; i < runs.front().size(); ++i) {
    const auto& run = runs[random() % runs.size()];
    draw.push_back(run[random() % run.size()]);
  }
  return results::estimate_with(estimator, draw);
}

}  // namespace

ReplayResult replay(const RecordedRuns& recorded, const ReplayOptions& options) {
  std::size_t most = 0;
  for (const auto& [id, runs] : recorded) most = std::max(most, runs.size());
  std::vector<std::pair<std::string, const std::vector<std::vector<double>>*>> usable;
  for (const auto& [id, runs] : recorded) {
    const bool complete = runs.size() == most &&
                          std::none_of(runs.begin(), runs.end(), [](const auto& r) { return r.empty(); });
    if (complete) usable.emplace_back(id, &runs);
  }
  ReplayResult out;
  out.cases = usable.size();
  out.trials = options.trials;
  for (double step : options.steps) out.power.push_back({step});
  std::mt19937_64 random(options.seed);
  for (std::size_t t = 0; t < options.trials; ++t) {
    std::vector<GateInput> inputs;
    std::vector<std::string> ids;
    std::vector<double> again;
    for (const auto& [id, runs] : usable) {
      GateInput in;
      in.case_id = id;
      for (std::size_t n = 0; n < options.nights; ++n) in.history.push_back(night(*runs, options.estimator, random));
      in.tonight = night(*runs, options.estimator, random);
      inputs.push_back(std::move(in));
      ids.push_back(id);
      again.push_back(isolated_night(*runs, options.estimator, random));
    }
    GateResult same = judge(inputs, options.gate);
    out.candidates += same.candidates();
    out.max_candidates = std::max(out.max_candidates, same.candidates());
    confirm(same, ids, again);
    if (same.count("slower") + same.count("faster") > 0) ++out.alert_nights;
    if (t == 0) {
      for (const auto& c : same.cases) out.noise.push_back(c.noise);
    }
    for (auto& p : out.power) {
      std::vector<GateInput> stepped = inputs;
      std::vector<double> stepped_again = again;
      for (auto& in : stepped) *in.tonight *= p.step;
      for (auto& v : stepped_again) v *= p.step;
      GateResult r = judge(stepped, options.gate);
      confirm(r, ids, stepped_again);
      for (std::size_t i = 0; i < r.cases.size(); ++i) {
        const double noise = same.cases[i].noise;
        const bool caught = r.cases[i].verdict == "slower";
        if (noise <= 0.02) {
          ++p.tried_2;
          p.caught_2 += caught ? 1 : 0;
        }
        if (noise <= 0.01) {
          ++p.tried_1;
          p.caught_1 += caught ? 1 : 0;
        }
      }
    }
  }
  return out;
}

}  // namespace opbench::compare
