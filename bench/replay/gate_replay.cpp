#include "replay/gate_replay.hpp"

#include <algorithm>
#include <random>

#include "opbench/results/estimate.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::replay {
namespace {

using gate::confirm;
using gate::confirm_ab;
using gate::judge;
using gate::robust_log_sd;
using gate::second_look;

// What `run --processes P --repetitions R` measures of a case: R repetition medians split over
// P processes as run splits them, each process drawing its share from a recorded process of its
// own (the differences between processes; the same recorded process twice in one night only when
// fewer were recorded than the night has), with replacement (the noise inside one); the estimator
// over all of them.
double measure(const std::vector<std::vector<double>>& recorded, std::size_t processes,
               std::size_t repetitions, const std::string& estimator, std::mt19937_64& random) {
  const std::vector<int> shares =
      results::split_repetitions(static_cast<int>(repetitions), static_cast<int>(processes));
  // A partial shuffle of the recorded processes: the night's k-th process takes slot k (modulo
  // their number, when a night has more processes than were recorded).
  std::vector<std::size_t> order(recorded.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::vector<double> draw;
  for (std::size_t k = 0; k < shares.size(); ++k) {
    const std::size_t slot = k % order.size();
    std::swap(order[slot], order[slot + random() % (order.size() - slot)]);
    const auto& process = recorded[order[slot]];
    for (int i = 0; i < shares[k]; ++i)
      draw.push_back(process[random() % process.size()]);
  }
  return results::estimate_with(estimator, draw);
}

} // namespace

ReplayResult replay(const RecordedProcesses& recorded, const ReplayOptions& options) {
  std::size_t most = 0;
  for (const auto& [id, runs] : recorded)
    most = std::max(most, runs.size());
  std::vector<std::pair<std::string, const std::vector<std::vector<double>>*>> usable;
  for (const auto& [id, runs] : recorded) {
    const bool complete =
        runs.size() == most &&
        std::none_of(runs.begin(), runs.end(), [](const auto& r) { return r.empty(); });
    if (complete)
      usable.emplace_back(id, &runs);
  }
  ReplayResult out;
  out.cases = usable.size();
  for (const auto& [id, processes] : usable) {
    std::vector<double> values;
    for (const auto& process : *processes)
      values.push_back(results::estimate_with(options.estimator, process));
    out.process_spread.push_back(robust_log_sd(values));
  }
  out.trials = options.trials;
  for (double step : options.steps)
    out.power.push_back({step});
  std::mt19937_64 random(options.seed);
  for (std::size_t t = 0; t < options.trials; ++t) {
    std::vector<GateInput> inputs;
    std::vector<std::string> ids;
    std::vector<double> again;
    std::vector<double> looks; // the second look: the same measurement as tonight's, once more
    // A/B: the previous build's rounds and tonight's (identical code: the same noise).
    std::vector<ab::PairedCase> paired;
    for (const auto& [id, runs] : usable) {
      const std::size_t repetitions =
          options.repetitions > 0 ? options.repetitions : runs->front().size();
      GateInput in;
      in.case_id = id;
      for (std::size_t n = 0; n <= options.nights; ++n) {
        const double value =
            measure(*runs, options.processes, repetitions, options.estimator, random);
        if (n < options.nights) {
          in.history.push_back(value);
        } else {
          in.tonight = value;
        }
      }
      inputs.push_back(std::move(in));
      ids.push_back(id);
      looks.push_back(measure(*runs, options.processes, repetitions, options.estimator, random));
      if (options.ab_rounds == 0) {
        // The candidates measured again as nightly.sh does without a previous build: `run
        // --isolate`, every repetition a process of its own.
        again.push_back(measure(*runs, repetitions, repetitions, options.estimator, random));
        continue;
      }
      // A/B as nightly.sh runs `opbench ab` on the candidates: a fresh process of each side per
      // round, ab's 2 repetitions in it, the fastest one's median the round's time.
      ab::PairedCase pair;
      pair.case_id = id;
      for (std::size_t k = 0; k < options.ab_rounds; ++k) {
        pair.base.push_back(measure(*runs, 1, 2, "min", random));
        pair.new_times.push_back(measure(*runs, 1, 2, "min", random));
      }
      paired.push_back(std::move(pair));
    }
    // Judged as scripts/nightly.sh judges: the gate, the second look, the confirmation (which
    // leaves the candidates as they are).
    auto decide = [&](const std::vector<GateInput>& step_inputs,
                      const std::vector<double>& step_looks, const std::vector<double>& step_again,
                      const std::vector<ab::PairedCase>& step_paired) {
      GateResult r = judge(step_inputs, options.gate);
      if (options.second_look)
        second_look(r, ids, step_looks);
      if (options.ab_rounds > 0) {
        confirm_ab(r, step_paired);
      } else {
        confirm(r, ids, step_again);
      }
      return r;
    };
    const GateResult same = decide(inputs, looks, again, paired);
    out.candidates += same.candidates();
    out.max_candidates = std::max(out.max_candidates, same.candidates());
    if (same.candidates() * 100 > usable.size())
      ++out.nights_over_1pct;
    out.second_looks += same.second_looks();
    if (same.count(results::Verdict::slower) + same.count(results::Verdict::faster) > 0)
      ++out.alert_nights;
    for (const auto& c : same.cases) {
      if (c.verdict == results::Verdict::slower || c.verdict == results::Verdict::faster)
        ++out.false_alerts[core::name_of(c.verdict) + " " + c.case_id];
    }
    if (t == 0) {
      for (const auto& c : same.cases)
        out.noise.push_back(c.noise);
    }
    for (auto& p : out.power) {
      std::vector<GateInput> stepped = inputs;
      std::vector<double> stepped_looks = looks;
      std::vector<double> stepped_again = again;
      std::vector<ab::PairedCase> stepped_paired = paired;
      for (auto& in : stepped)
        *in.tonight *= p.step;
      for (auto& v : stepped_looks)
        v *= p.step;
      for (auto& v : stepped_again)
        v *= p.step;
      for (auto& pair : stepped_paired) {
        for (auto& v : pair.new_times)
          v *= p.step;
      }
      const GateResult r = decide(stepped, stepped_looks, stepped_again, stepped_paired);
      for (std::size_t i = 0; i < r.cases.size(); ++i) {
        const double noise = same.cases[i].noise;
        const bool caught = r.cases[i].verdict == results::Verdict::slower;
        if (noise <= 0.02) {
          ++p.tried_2;
          p.caught_2 += caught ? 1 : 0;
        }
        if (noise <= 0.01) {
          ++p.tried_1;
          p.caught_1 += caught ? 1 : 0;
        }
        if (out.process_spread[i] <= 0.02) {
          ++p.tried_spread_2;
          p.caught_spread_2 += caught ? 1 : 0;
        }
      }
    }
  }
  return out;
}

} // namespace opbench::replay
