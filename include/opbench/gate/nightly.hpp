#pragma once
// One night of the gate from its files: tonight's result against each case's history, with the
// second look and the confirmation when the night has them (`compare --history`; the pure rules
// are gate.hpp's, the schedule of a night is scripts/nightly.sh; see docs/nightly.md).

#include <string>
#include <vector>

#include "opbench/gate/gate.hpp"
#include "opbench/results/thresholds.hpp"

namespace opbench::gate {

// The files of one night.
struct Night {
  std::string tonight; // tonight's result file (or journal)
  std::string history; // the history database (history::History)
  // The cases that asked for a second look, measured again tonight with tonight's settings; "":
  // none.
  std::string second_look;
  std::vector<std::string> confirm; // the candidates measured again (files pooled)
  // Or: the candidates measured A/B against the previous build, `opbench ab`'s file (its
  // base side the previous build, its new side tonight's); "": none.
  std::string confirm_ab;
  // Per-case effect floors (compare --thresholds); each rule must match a case of tonight.
  std::vector<results::ThresholdRule> thresholds;
};

// Judges tonight: per case, the history's nights measured the way tonight was (the same
// `timing.measures` and `timing.call_path`), each made again with tonight's estimator from its
// repetition medians; then the second look and the confirmation. Throws UsageError when the
// second look was measured with other settings than tonight (estimator, repetitions, processes,
// isolate) or both `confirm` and `confirm_ab` are given; ResultsError on an unreadable file.
GateResult judge_night(const Night& night, const GateOptions& options);

} // namespace opbench::gate
