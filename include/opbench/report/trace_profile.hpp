#pragma once
// What a case's profiler trace (CaseResult::trace from `run --trace`: Chrome trace JSON written
// by Kineto) says of the ATen operators inside one call of the case: the operators at the top
// level of the call (not those another operator calls), per name, per call; and the call's own
// traced time. The breakdown report shows it beside the parts timed alone (docs/extract.md).

#include <string>
#include <vector>

#include "opbench/core/json.hpp"

namespace opbench::report {

// One operator name at the top level of the traced calls, per call (the trace's totals over its
// calls).
struct TracedOp {
  std::string name;   // "aten::sub"
  double calls = 0;   // calls a call
  double seconds = 0; // their time a call (each inflated by the profiler's own cost)
};

struct TraceProfile {
  int calls = 0;             // calls marked in the trace (results::k_traced_call); 0: none marked
  double call_seconds = 0;   // one call's traced time (the mean of the marked calls; unmarked:
                             // from the first operator's start to the last one's end)
  std::vector<TracedOp> ops; // slowest first
  double op_seconds() const; // the ops' time a call
};

// The profile of `trace` (the JSON of a trace file). Operator events are those of category
// "cpu_op"; one lies at the top level when no other operator event of its thread encloses it.
// Throws ResultsError naming `where` when it is no trace (no "traceEvents" list).
TraceProfile profile_of_trace(const Json& trace, const std::string& where);

} // namespace opbench::report
