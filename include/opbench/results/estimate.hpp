#pragma once
// How a case's number is made from what its repetitions measured: the estimators, the estimate and
// its interval, the combination of repetitions (and of the processes that measured them), the
// repetitions set aside for an unusual memory bandwidth, and the noise label. The one home of
// these rules: bench/pystats.py mirrors this file for the scripts under bench/. The fields they
// fill are result_set.hpp's; docs/reproducibility.md says why each rule is what it is.

#include <string>
#include <vector>

#include "opbench/results/interval.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::results {

// How a case's time is made from its repetition medians (run --estimator; recorded per result).
//  - "fastest-third": the mean of the fastest third of the repetition medians (2 of the default
//    6; the fastest alone when there are fewer than 6), the default. On a shared machine
//    interference only ever adds time (another tenant, an interrupt, a cold page), so the fastest
//    repetitions are the ones that repeat from process to process; the mean of the fastest few
//    leans less on one lucky placement than the fastest alone.
//  - "min": the fastest repetition's median: the minimum BenchmarkTools.jl judges regressions on
//    (Chen and Revels, "Robust benchmarking in noisy environments", 2016).
//  - "median": the median of the repetition medians, the typical repetition.
// The A/As that chose the default are in docs/reproducibility-log.md.
const std::vector<std::string>& estimator_names();
// `estimator` over `repetition_medians`; NaN when there is none. Throws Error on an unknown name.
double estimate_with(const std::string& estimator, const std::vector<double>& repetition_medians);

// Past this ratio of its slowest repetition median to its fastest, a case is unstable: it ran at
// two different levels (a thread pool that fell back to one thread, a kernel choice that flips, a
// 32 ms sleep), and which one the estimator reports is chance. Within a repetition the blocks' cv
// is 1-10% for most cases; whole repetitions caught in a slow spell of a shared machine run up to
// 2-3x slow in about 1% of cases of identical code (the figures are in
// docs/reproducibility-log.md, "Unstable repetitions"); 3x is past both.
inline constexpr double k_unstable_ratio = 3.0;
// Whether `repetition_medians` (two or more, finite, positive) are unstable: the slowest over
// k_unstable_ratio times the fastest.
bool is_unstable(const std::vector<double>& repetition_medians);
// The repetitions to measure again when `repetition_medians` are unstable: the slow ones, at or
// over the geometric middle of the fastest and the slowest, by index; empty when they are not
// unstable. The slow ones, whatever their number: interference only adds time (the reason for the
// fastest-third estimator), so a slow repetition may have met it and a fast one cannot have;
// measuring the fast ones again would wipe out a rare fast level instead of telling it.
std::vector<std::size_t> disagreeing_repetitions(const std::vector<double>& repetition_medians);
// The estimate from one median per repetition, measured by `repetition_processes` (one per median;
// empty or of another length: not known).
Estimate estimate_of(const std::vector<double>& repetition_medians,
                     const std::string& estimator = k_default_estimator,
                     const std::vector<int>& repetition_processes = {},
                     double allowance = k_run_allowance);

// How a run (`run --processes`, recorded as context.processes) splits a case's repetitions over
// fresh processes run one after another: the share of each (the first ones take one more when it
// does not divide), at least one repetition each, so never more processes than repetitions.
std::vector<int> split_repetitions(int repetitions, int processes);

// One result from parts of a case's measurement: single repetitions (a run's loop, --isolate's
// processes) or results of several repetitions each (--processes: one per process). Samples
// concatenated in order, statistics over all of them, every part's repetition medians kept and
// the estimate made from all of them, timing summed, the noise the typical repetition's; memory
// from the first part that has it. Any part that failed makes the whole case fail with its
// message.
CaseResult combine_repetitions(const std::vector<CaseResult>& repetitions,
                               const std::string& estimator = k_default_estimator);

// Moves the repetitions of a memory-bound case (timing.repetition_bandwidth) measured at an
// unusual memory bandwidth (either reading not stats::is_usual against `usual`) to
// timing.set_aside, and makes the estimate again from the others with its estimator. When none
// was measured at the usual bandwidth, all stay and the message says so. Records `usual` as
// timing.usual_bandwidth. Nothing happens without readings or a positive `usual`. Returns what it
// did.
struct SetAsideOutcome {
  std::size_t set_aside = 0; // repetitions moved to timing.set_aside
  bool all_unusual = false;  // every repetition was off the usual level: all kept, message says so
};
SetAsideOutcome set_aside_unusual_bandwidth(CaseResult& result, double usual, double tolerance);

// The uncertainty of a case's number (estimate.time): how far apart the repetition medians its
// estimator is made from lie. fastest-third and min: (the k-th fastest - the fastest) / the
// fastest, k the repetitions the estimator takes, at least 2 (so the fastest and the next for
// min, and for fastest-third under 6 repetitions); median: half the median's interval over the
// median ((high - low) / 2 / median). NaN with fewer than two repetitions.
double uncertainty(const CaseResult& result);
// Past this uncertainty a case is noisy: the repetitions its number is made from disagree by more
// than 10% (pyperf's mark of an unstable benchmark is a 10% standard deviation). On A/As of the
// default suite such cases repeat from run to run 2.5-3.5 times worse than the others, where the
// blocks' cv inside a repetition hardly told them apart: docs/reproducibility-log.md, "A noise
// label that speaks of the number".
inline constexpr double k_noisy_uncertainty = 0.10;
// Past this cv of its (typical repetition's) blocks a case of one repetition is noisy (no
// uncertainty to tell it by): its blocks disagree so much that its number may be off.
inline constexpr double k_noisy_cv = 0.10;
// Whether an ok case is noisy: its uncertainty over k_noisy_uncertainty; with one repetition, its
// typical repetition's block cv (timing.noise) over k_noisy_cv, or over --target-noise when that
// is looser (missing the stopping rule's target is not noisy: a default repetition stops at
// --max-time first in most cases). The block cv stays in every output as a detail (`cv`).
bool noisy(const CaseResult& result);

} // namespace opbench::results
