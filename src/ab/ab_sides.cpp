// One side of an A/B file as a result set of its own (ab.hpp's side_results): what a client that
// compares two result files (google/benchmark's compare.py, Bencher) is given from `opbench ab`.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "opbench/ab/ab.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/store.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::ab {

results::ResultSet side_results(const AbResult& ab, const std::string& side,
                                const std::string& where) {
  if (side != "base" && side != "new")
    throw UsageError("--side names an A/B file's side: base or new, not '" + side + "'");
  const bool base = side == "base";
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < ab.cases.size(); ++i)
    index.emplace(ab.cases[i].c.case_id, i);
  // Per case: its first measured round's result (what the run said of it), then one time per
  // round, every round's samples and the calls they timed.
  struct Pooled {
    std::optional<results::CaseResult> first;
    std::vector<double> times;
    std::vector<double> samples;
    double calls = 0;
  };
  std::vector<Pooled> pooled(ab.cases.size());
  for (const SideRun& run : ab.runs) {
    if (run.side != side || run.result.empty())
      continue;
    if (!core::is_regular_file(run.result)) {
      throw ResultsError(where + ": the " + side + " side's result file of round " +
                         std::to_string(run.round) + ", " + run.result +
                         ", is not there (a side is read from its runs' files: export where `ab` "
                         "ran, its --work-dir kept)");
    }
    const results::ResultSet set = results::load_results(run.result);
    for (const results::CaseResult& r : set.cases) {
      const auto at = index.find(r.c.case_id);
      if (at == index.end() || r.status != results::Status::ok)
        continue;
      const PairedCase& paired = ab.cases[at->second].paired;
      const std::vector<double>& times = base ? paired.base : paired.new_times;
      const auto round = static_cast<std::size_t>(run.round);
      if (round < 1 || round > times.size() || !(times[round - 1] > 0))
        continue; // the A/B file has no time of this round: it is not the side's
      Pooled& p = pooled[at->second];
      if (!p.first)
        p.first = r;
      p.times.push_back(times[round - 1]);
      p.samples.insert(p.samples.end(), r.samples.begin(), r.samples.end());
      p.calls += static_cast<double>(r.samples.size()) * static_cast<double>(r.timing.block_size);
    }
  }
  results::ResultSet out;
  out.context = base ? ab.base_context : ab.new_context;
  out.context["ab_side"] =
      side + " side of " + where + ", " + std::to_string(ab.rounds_done) + " rounds";
  for (std::size_t i = 0; i < ab.cases.size(); ++i) {
    const AbCase& c = ab.cases[i];
    Pooled& p = pooled[i];
    if (!p.first) {
      results::CaseResult missing;
      missing.c = c.c;
      missing.status = results::Status::error;
      const std::string& error = base ? c.base_error : c.new_error;
      missing.message = !error.empty() ? error : "the " + side + " side measured it in no round";
      out.cases.push_back(std::move(missing));
      continue;
    }
    // A round is a repetition: its time the one the verdict pairs (the fastest of the side run's
    // repetition medians), the run's other per-repetition figures left out.
    results::CaseResult r = std::move(*p.first);
    r.timing.repetition_medians = p.times;
    r.timing.repetition_processes.clear(); // a round is a process of its own
    r.timing.set_aside.clear();
    r.timing.cpu_times.clear();
    r.timing.batch_times.clear();
    r.timing.repetition_bandwidth.clear();
    r.timing.repetition_device_state.clear();
    r.samples = std::move(p.samples);
    r.summary = stats::summarize(r.samples);
    // The rounds' calls shared out over the samples, as a run's repetitions share theirs.
    r.timing.block_size =
        r.samples.empty() ? 1
                          : std::max<std::int64_t>(
                                1, std::llround(p.calls / static_cast<double>(r.samples.size())));
    r.estimate = results::estimate_of(p.times, r.estimate.estimator);
    out.cases.push_back(std::move(r));
  }
  return out;
}

} // namespace opbench::ab
