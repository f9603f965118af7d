#pragma once
// The paired verdict of `opbench ab` (docs/ab.md): both sides measured every case in the same
// rounds, each round a fresh process of each side, so a case's rounds give paired times and the
// change is read from their log ratios, ln(new / base), one per round. What drifts over the
// hour (the host's speed, a neighbour) moves both sides of a round alike and cancels in the
// ratio; what differs between a case's rounds is the noise the verdict is judged against.
//
// Per case with n >= PairedOptions::min_rounds pairs: the 20%-trimmed mean log ratio d and its
// standard error s from the winsorized deviation, on n - 2g - 1 degrees of freedom (Yuen's
// trimmed t, g = floor(0.2 n) pairs trimmed from each end): a round whose one side met a slow
// spell of a shared host moves the ratio by up to 2-3x either way (docs/ab-log.md), and the
// plain mean and t would let one such round decide. `slower` / `faster` only when the change is
// past the threshold with the false-discovery rate held over all cases: each case's p-value is the
// t test of "the change lies within [ln(1 - threshold), ln(1 + threshold)]" against "it lies past
// one end", Benjamini-Hochberg at `fdr` picks R of the m cases that have one, and a picked case's
// interval at level 1 - R fdr / m (Benjamini and Yekutieli's false-coverage-rate adjustment)
// then lies wholly past the threshold. `same` when its interval at 1 - fdr lies wholly within
// the threshold. Otherwise `unknown`, with the smallest change it could have seen: the largest
// |ln| of its interval's ends as a relative change (a threshold at least that large would have
// judged it). Memory is exact and judged apart (results/memory_change.hpp).

#include <cstddef>
#include <string>
#include <vector>

#include "opbench/results/memory_change.hpp"
#include "opbench/results/verdict.hpp"

namespace opbench::ab {

struct PairedOptions {
  double threshold = 0.05;    // relative change that matters (0.05 = 5%)
  double fdr = 0.05;          // false-discovery rate over all cases (and 1 - the interval's level)
  std::size_t min_rounds = 3; // fewer pairs: `unknown`
};

// One case's paired rounds and what they say. `base` and `new_times` hold one time per round
// (seconds per call), NaN where that side has none in the round (it failed, or the case was not
// measured then); a round counts as a pair when both are finite and positive.
struct PairedCase {
  std::string case_id;
  std::vector<double> base;
  std::vector<double> new_times;

  results::Verdict verdict = results::Verdict::unknown;
  std::string reason; // why `unknown`
  std::size_t pairs = 0;
  double ratio = 0; // exp(trimmed mean log ratio): the rounds' typical new / base; NaN
  double low = 0;   // the interval of that ratio at `level`; NaN without pairs enough
  double high = 0;
  double level = 0;   // the interval's confidence (1 - fdr, or the adjusted level of a change)
  double p_value = 0; // the test of a change past the threshold (two-sided); NaN when untested
  double seeable = 0; // the smallest change it could have seen (relative); NaN when untested
  results::MemoryChange memory;
};

// The geometric-mean ratio of the whole suite, new over base, with its interval: per round of the
// first `rounds` (all when 0), the mean log ratio over the cases paired in every one of them
// (`cases`), then a t interval over those rounds at 1 - fdr. NaN when fewer than 2 rounds or no
// such case.
struct SuiteRatio {
  std::size_t cases = 0;
  std::size_t rounds = 0;
  double ratio = 0;
  double low = 0;
  double high = 0;
};

// Judges every case of `cases` in place (verdict, reason, pairs, ratio, interval, level,
// p_value, seeable); memory is left as it is.
void judge_paired(std::vector<PairedCase>& cases, const PairedOptions& options);

// The suite's ratio over `cases` (see SuiteRatio).
SuiteRatio suite_ratio(const std::vector<PairedCase>& cases, const PairedOptions& options,
                       std::size_t rounds = 0);

} // namespace opbench::ab
