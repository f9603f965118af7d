#include "opbench/compare/gate_replay.hpp"

#include <algorithm>
#include <random>

#include "opbench/results/result_set.hpp"

namespace opbench::compare {
namespace {

// One night: `options.repetitions` repetition medians (0: a recorded run's count) split over
// `options.processes` processes, each drawing its share from one recorded run.
double night(const std::vector<std::vector<double>>& runs, const ReplayOptions& options, std::mt19937_64& random) {
  const std::size_t repetitions = options.repetitions > 0 ? options.repetitions : runs.front().size();
  const std::size_t processes = std::max<std::size_t>(1, std::min(options.processes, repetitions));
  std::vector<double> draw;
  for (std::size_t p = 0; p < processes; ++p) {
    const auto& run = runs[random() % runs.size()];
    const std::size_t share = repetitions / processes + (p < repetitions % processes ? 1 : 0);
    for (std::size_t i = 0; i < share; ++i) draw.push_back(run[random() % run.size()]);
  }
  return results::estimate_with(options.estimator, draw);
}

// The confirmation as scripts/nightly.sh takes it (run --isolate): every repetition in a fresh
// process, so each of its repetition medians comes from a recorded run of its own.
double isolated_night(const std::vector<std::vector<double>>& runs, const ReplayOptions& options,
                      std::mt19937_64& random) {
  const std::size_t repetitions = options.repetitions > 0 ? options.repetitions : runs.front().size();
  std::vector<double> draw;
  for (std::size_t i = 0; i < repetitions; ++i) {
    const auto& run = runs[random() % runs.size()];
    draw.push_back(run[random() % run.size()]);
  }
  return results::estimate_with(options.estimator, draw);
}

// One side of an A/B confirmation as scripts/nightly.sh takes it with OPBENCH_BASELINE_BIN:
// `rounds` rounds of 3 fresh processes (`run --processes 1 --repetitions 3`), each from a
// recorded run of its own, its value the estimator over its repetitions; every value times `step`.
std::vector<double> ab_side(const std::vector<std::vector<double>>& runs, const ReplayOptions& options, double step,
                            std::mt19937_64& random) {
  std::vector<double> values;
  for (std::size_t i = 0; i < 3 * options.ab_rounds; ++i) {
    const auto& run = runs[random() % runs.size()];
    std::vector<double> draw;
    for (std::size_t k = 0; k < 3; ++k) draw.push_back(run[random() % run.size()]);
    values.push_back(step * results::estimate_with(options.estimator, draw));
  }
  return values;
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
    // A/B: the previous build's processes and tonight's (identical code: the same noise).
    std::vector<std::vector<double>> ab_before, ab_after;
    for (const auto& [id, runs] : usable) {
      GateInput in;
      in.case_id = id;
      for (std::size_t n = 0; n < options.nights; ++n) in.history.push_back(night(*runs, options, random));
      in.tonight = night(*runs, options, random);
      inputs.push_back(std::move(in));
      ids.push_back(id);
      again.push_back(isolated_night(*runs, options, random));
      if (options.ab_rounds > 0) {
        ab_before.push_back(ab_side(*runs, options, 1.0, random));
        ab_after.push_back(ab_side(*runs, options, 1.0, random));
      }
    }
    auto decide = [&](GateResult& r, const std::vector<double>& step_again,
                      const std::vector<std::vector<double>>& step_after) {
      if (options.ab_rounds > 0) {
        confirm_ab(r, ids, ab_before, step_after);
      } else {
        confirm(r, ids, step_again);
      }
    };
    GateResult same = judge(inputs, options.gate);
    out.candidates += same.candidates();
    out.max_candidates = std::max(out.max_candidates, same.candidates());
    decide(same, again, ab_after);
    if (same.count("slower") + same.count("faster") > 0) ++out.alert_nights;
    for (const auto& c : same.cases) {
      if (c.verdict == "slower" || c.verdict == "faster") ++out.false_alerts[c.verdict + " " + c.case_id];
    }
    if (t == 0) {
      for (const auto& c : same.cases) out.noise.push_back(c.noise);
    }
    for (auto& p : out.power) {
      std::vector<GateInput> stepped = inputs;
      std::vector<double> stepped_again = again;
      std::vector<std::vector<double>> stepped_after = ab_after;
      for (auto& in : stepped) *in.tonight *= p.step;
      for (auto& v : stepped_again) v *= p.step;
      for (auto& side : stepped_after) {
        for (auto& v : side) v *= p.step;
      }
      GateResult r = judge(stepped, options.gate);
      decide(r, stepped_again, stepped_after);
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
