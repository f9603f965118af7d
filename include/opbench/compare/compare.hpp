#pragma once
// Two stored result sets, joined on case_id: is NEW slower than BASE? Decided on statistics, not
// a bare threshold: a case is `slower` only when its time ratio is past the threshold AND a
// two-sided Mann-Whitney U test on the replicates says the difference is significant. The
// replicates are the repetition medians (one per repetition: fresh inputs, another moment of the
// run, another of the run's processes; with run --isolate, a process each), never the blocks
// inside one repetition, which are pseudo-replicates: with one repetition a side the verdict is
// `unknown`, and so it is when a side's repetitions all come from one process (they share what
// is fixed for a process: its layout, where its heap and thread pools landed), as a run of
// `--processes 1` makes them. `same` is said only where the data could have seen a change of the
// threshold's size: the ratio's confidence interval (the U test's Hodges-Lehmann interval) lies
// within [1 - threshold, 1 + threshold]; a change that is neither significant nor bounded is
// `unknown`, saying how far its interval reaches. Memory is judged apart and exactly
// (results/memory_change.hpp): `more memory` / `less memory` / `same` / `unknown`. For nightly
// use, judge against the history instead (gate/gate.hpp).

#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "opbench/core/formats.hpp"
#include "opbench/core/json.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/memory_change.hpp"
#include "opbench/results/result_set.hpp"
#include "opbench/results/thresholds.hpp"
#include "opbench/results/verdict.hpp"

namespace opbench::compare {

struct CompareOptions {
  double threshold = 0.05;        // relative change of the median that matters (0.05 = 5%)
  double alpha = 0.05;            // significance level of the U test
  std::size_t min_replicates = 4; // fewer repetition medians on either side: verdict `unknown`
  // The estimator both sides' times are made with (results::estimator_names()), from their
  // repetition medians; empty: the one BASE was run with (NEW is estimated again with it when it
  // was run with another).
  std::string estimator;
  // The two runs' machine speeds (each run's fastest speed canary per thread count:
  // summary.slow_spells) further apart than this get a note: every ratio then carries the host's
  // change too. 0.03: the fastest canaries of runs in one steady hour lie 1-2% apart here.
  double speed_tolerance = 0.03;
  // Divide NEW's CPU times by the two runs' machine speed ratio (NEW's fastest speed canary over
  // BASE's, at the case's thread count): the comparison then shows the code's change without the
  // host's. Off by default: a time is a time. Divided however close the canaries are: on this
  // machine that repeated better than dividing only past speed_tolerance (the A/A figures are in
  // docs/reproducibility.md, "The machine's speed from run to run").
  bool adjust_speed = false;
  // Per-case thresholds (--thresholds FILE): a case a rule matches is judged with the rule's
  // threshold instead of `threshold`. Every rule must match a case of BASE or NEW.
  std::vector<results::ThresholdRule> thresholds;
};

struct CaseComparison {
  std::string case_id;
  results::Verdict verdict = results::Verdict::unknown;
  std::string reason;   // why `unknown`
  double base_time = 0; // seconds, the case's time (Comparison::estimator); NaN when absent
  double new_time = 0;
  double ratio = 0; // new / base (divided by speed_factor); NaN when absent
  // What NEW's time was divided by for the machine's speed (CompareOptions::adjust_speed); 1:
  // nothing.
  double speed_factor = 1;
  double p_value = 0; // NaN when not tested
  // The ratio's confidence interval at 1 - alpha (stats::shift_interval on the log repetition
  // medians): where the change may lie. `same` needs all of it within the threshold; NaN when not
  // tested, infinite where the repetitions cannot bound it.
  double ratio_low = 0;
  double ratio_high = 0;
  std::size_t base_replicates = 0; // repetition medians
  std::size_t new_replicates = 0;
  std::size_t base_processes = 0; // the processes those came from (recorded_processes)
  std::size_t new_processes = 0;
  results::MemoryChange memory; // the call's peak and total bytes, BASE against NEW
  double threshold = 0;         // the threshold this case was judged with
  std::string threshold_rule;   // the rule that set it (results::describe); "": --threshold
};

// A case's repetition medians split into the processes that measured them, from its run's
// context: `run --processes P` (P > 1) measured `repetitions` of them in P processes, in order,
// as results::split_repetitions shares them; `--isolate` each in a process of its own; else all in
// one. A case with fewer repetitions than the run planned (a child that died) cannot be split
// and counts as one process.
std::vector<std::vector<double>> recorded_processes(const Json& context,
                                                    const std::vector<double>& repetition_medians);
// The same for a case's timing: by the processes it records (TimingInfo::repetition_processes,
// since 2026-11-28: a case `run` stopped early has fewer repetitions than planned, still from two
// processes), else as above, its repetitions set aside for an unusual memory bandwidth
// (TimingInfo::set_aside) keeping their places: each process keeps the medians it measured that
// were not set aside, and a process left with none is not counted.
std::vector<std::vector<double>> recorded_processes(const Json& context,
                                                    const results::TimingInfo& timing);

// How closely the two files agree, over the cases that have a ratio on both sides: the
// distribution of |ratio - 1| (numpy-linear percentiles) and the cases farthest from 1. On two
// runs of identical code this is the A/A spread (bench/aa.sh).
struct Agreement {
  std::size_t cases = 0;        // cases with a finite ratio
  double median_abs_change = 0; // median of |ratio - 1|; NaN when no case
  double p90_abs_change = 0;    // 90th percentile of |ratio - 1|; NaN when no case
  // Cases whose ratio is past k_far_ratio either way (over 1.25 or under 1/1.25): the tail that an
  // A/A of identical code should not have (issue #11's goal).
  std::size_t past_far_ratio = 0;
  static constexpr double k_far_ratio = 1.25;
  std::vector<std::size_t> worst; // indices into Comparison::cases, farthest from 1 first
                                  // (by |log ratio|), at most k_worst_cases
  static constexpr std::size_t k_worst_cases = 10;
};

struct Comparison {
  CompareOptions options;
  std::string base_path;
  std::string new_path;
  std::string estimator;          // how each side's time was made from its repetition medians
  std::vector<std::string> notes; // what the reader should know (a side estimated again)
  // With CompareOptions::adjust_speed: the speed ratio NEW's CPU times were divided by, per thread
  // count both runs have a canary for (keyed as the summaries key them); empty when none.
  std::map<std::string, double> speed_factors;
  std::vector<CaseComparison> cases; // the cases of both files, in BASE's order
  double geomean_ratio = 0;          // geometric mean of the ratios that exist; NaN when none
  std::vector<std::string> only_in_base;
  std::vector<std::string> only_in_new;
  Agreement agreement;

  // The verdicts of `cases`, counted (the one counting of compare, the gate and ab).
  results::VerdictCounts counts() const { return results::count_verdicts(cases); }
  std::size_t count(results::Verdict verdict) const { return counts().of(verdict); }
  std::size_t count(results::MemoryVerdict memory) const { return counts().of(memory); }
  // Some case is significantly slower by more than the threshold.
  bool regressed() const { return counts().regressed(); }
  // No case was judged: every one is `unknown` (or there were none in common).
  bool nothing_judged() const { return counts().nothing_judged(); }
  // Some case's call takes more memory (peak or total bytes past the tolerance).
  bool more_memory() const { return counts().more_memory_seen(); }
};

// The agreement of `cases` (see Agreement).
Agreement agreement_of(const std::vector<CaseComparison>& cases);

// Throws ResultsError when the two sets have no case in common (incompatible files), UsageError
// when a threshold rule matches no case of either.
Comparison compare_results(const results::ResultSet& base, const results::ResultSet& candidate,
                           const CompareOptions& options);

// Output formats of `opbench compare`: md, json, csv, junit (JUnit XML for CI systems:
// `slower` fails, `unknown` is skipped; docs/nightly.md#junit-xml); core::write_as picks one.
const std::vector<core::Format<Comparison>>& comparison_formats();

Json to_json(const Comparison& comparison);
void write_markdown(const Comparison& comparison, std::ostream& out);
void write_csv(const Comparison& comparison, std::ostream& out);
void write_junit(const Comparison& comparison, std::ostream& out);

} // namespace opbench::compare
