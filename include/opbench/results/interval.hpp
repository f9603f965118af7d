#pragma once
// A case's interval: where another run of the same build is expected to find its time, made from
// how far its measuring processes' fastest repetitions lie apart and the run-to-run allowance; why
// one is wide; and a run's tally of them. The one home of these rules (docs/results.md, "The
// interval"; the A/As that chose the constants are in docs/reproducibility-log.md, "An interval
// that covers the next run"); bench/interval_rules.py replays them on recorded runs.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::results {

// The interval of a case's time (Estimate::interval; docs/results.md, "The interval"): where
// another run of the same build is expected to find it. Groups: the measuring processes
// (`repetition_processes`, one per median) when there are two or more of them, else each
// repetition alone. d = (the second fastest group's fastest median - the fastest group's) / the
// fastest group's: how far the next best process came from the best one (the estimator takes the
// fastest repetitions, so a slow process moves neither the time nor d, and a further process can
// only narrow it). half_width = max(allowance, k_spread_factor * d): a run shares one level of a
// shared machine's hour that none of its processes sees, and the A/A shows it
// (docs/reproducibility-log.md, "An interval that covers the next run"); `allowance` is at least
// k_run_allowance, more in a noisy run (run_allowance). NaN with fewer than two repetitions.
// `wide` says why it is past k_run_allowance: bimodal (the unstable ratio, or sorted medians with
// a gap over half their range and two on each side of it), drifting (three or more processes
// whose fastest repetitions rise or fall process after process), the processes (or repetitions)
// disagree, or, when the run's allowance alone made it so, a noisy run.
inline constexpr double k_run_allowance = 0.02;
inline constexpr double k_spread_factor = 1.5;
Interval interval_of(double time, const std::vector<double>& repetition_medians,
                     const std::vector<int>& repetition_processes = {},
                     double allowance = k_run_allowance);
// The case's own part of its interval, k_spread_factor * d (as interval_of); NaN with fewer than
// two groups.
double spread_width(const std::vector<double>& repetition_medians,
                    const std::vector<int>& repetition_processes);
// A run's allowance from its cases' spread_widths (NaNs left out): the larger of k_run_allowance
// and their median. No case of a run is given a narrower interval than the run's typical case:
// in a noisy hour the level the next run finds moves for every case, and a case whose few
// processes happened to agree has not shown it is spared (docs/reproducibility-log.md).
double run_allowance(const std::vector<double>& spread_widths);
// An interval's allowance, k_run_allowance when it does not say.
double allowance_of(const Interval& interval);
// Past this half-width a case's interval is wide: every output marks it with its reason.
inline constexpr double k_wide_interval = 0.05;

// How a run's ok cases ended against its interval target (`run --interval-target`; the result's
// summary.interval and the console's line): in how many processes each was measured, how many
// ended past the target, and the wide ones (past k_wide_interval) by reason.
struct IntervalTally {
  std::map<int, std::size_t> by_processes; // processes that measured a case -> cases
  std::size_t cases = 0;                   // ok cases with an interval
  std::size_t not_reached = 0;             // ended past the target
  std::map<WideReason, std::size_t> wide;  // past k_wide_interval, by reason
  std::vector<double> half_widths;
  double allowance = k_run_allowance; // the largest the cases were given
  void add(const CaseResult& result, double target);
  Json to_json(double target) const;
  // "interval: 650 of 722 cases within +-3.0% (480 after 2 processes, 170 after 3); 72 not, 40
  // of them wider than +-5% (25 processes disagree, 10 bimodal, 5 drifting); median +-2.0%"
  std::string describe(double target) const;
};

} // namespace opbench::results
