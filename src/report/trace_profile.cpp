// A case's profiler trace read for the ATen operators of one call (trace_profile.hpp).
#include "opbench/report/trace_profile.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "opbench/core/error.hpp"
#include "opbench/results/trace_marks.hpp"

namespace opbench::report {

double TraceProfile::op_seconds() const {
  double sum = 0;
  for (const TracedOp& op : ops)
    sum += op.seconds;
  return sum;
}

TraceProfile profile_of_trace(const Json& trace, const std::string& where) {
  if (!trace.is_object() || !trace.contains("traceEvents") || !trace["traceEvents"].is_array())
    throw ResultsError(where + ": not a profiler trace (no traceEvents list)");
  struct Event {
    std::string thread;
    double start = 0, duration = 0; // microseconds, as the trace writes them
    std::string name;
  };
  std::vector<Event> ops;
  TraceProfile profile;
  double marked = 0;
  for (const Json& e : trace["traceEvents"]) {
    if (!e.is_object() || e.value("ph", "") != "X" || !e.contains("ts") || !e.contains("dur") ||
        !e["ts"].is_number() || !e["dur"].is_number())
      continue;
    const std::string category = e.value("cat", "");
    const std::string name = e.value("name", "");
    if (category == "user_annotation" && name == results::k_traced_call) {
      ++profile.calls;
      marked += e["dur"].get<double>();
    } else if (category == "cpu_op") {
      ops.push_back({e.contains("tid") ? e["tid"].dump() : "", e["ts"].get<double>(),
                     e["dur"].get<double>(), name});
    }
  }
  // Outer events first where two start together: an enclosing one is at least as long.
  std::sort(ops.begin(), ops.end(), [](const Event& a, const Event& b) {
    return std::tie(a.thread, a.start, b.duration) < std::tie(b.thread, b.start, a.duration);
  });
  std::map<std::string, TracedOp> by_name;
  std::vector<double> open_until; // ends of the enclosing events of the current thread
  std::string thread;
  double first = 0, last = 0;
  bool any = false;
  for (const Event& e : ops) {
    if (e.thread != thread) {
      open_until.clear();
      thread = e.thread;
    }
    while (!open_until.empty() && open_until.back() <= e.start)
      open_until.pop_back();
    const double end = e.start + e.duration;
    if (open_until.empty()) {
      TracedOp& op = by_name[e.name];
      op.name = e.name;
      op.calls += 1;
      op.seconds += e.duration * 1e-6;
      first = any ? std::min(first, e.start) : e.start;
      last = any ? std::max(last, end) : end;
      any = true;
    }
    open_until.push_back(end);
  }
  const int calls = std::max(profile.calls, 1);
  profile.call_seconds =
      profile.calls > 0 ? marked * 1e-6 / profile.calls : std::max(0.0, last - first) * 1e-6;
  for (auto& [name, op] : by_name) {
    op.calls /= calls;
    op.seconds /= calls;
    profile.ops.push_back(op);
  }
  std::sort(profile.ops.begin(), profile.ops.end(),
            [](const TracedOp& a, const TracedOp& b) { return a.seconds > b.seconds; });
  return profile;
}

} // namespace opbench::report
