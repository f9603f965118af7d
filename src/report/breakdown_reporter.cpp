#include "opbench/report/breakdown_reporter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/report/trace_profile.hpp"

namespace opbench::report {
namespace {

using Results = std::vector<const results::CaseResult*>;

// A model by its name (one a run); a sample's case by its id (its sizes tell them apart).
std::string label(const results::CaseResult& whole) {
  return whole.c.kind == results::Kind::model ? whole.c.name : whole.c.case_id;
}

// The parts ranked by count x time, their sum, and the whole they are held against (if any).
void write_parts(Results parts, const Results& wholes, const char* whole_kind, std::ostream& out) {
  std::sort(parts.begin(), parts.end(), [](const auto* a, const auto* b) {
    return a->estimate.time * a->c.count > b->estimate.time * b->c.count;
  });
  double sum = 0;
  for (const auto* r : parts)
    sum += r->estimate.time * r->c.count;
  out << "| rank | case | calls | time | calls x time | share | cumulative |\n";
  out << "|---:|---|---:|---:|---:|---:|---:|\n";
  double cumulative = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto* r = parts[i];
    const double total = r->estimate.time * r->c.count;
    cumulative += total;
    out << fmt::format("| {} | `{}` | {} | {} | {} | {:.1f}% | {:.1f}% |\n", i + 1, r->c.case_id,
                       r->c.count, core::format_duration(r->estimate.time),
                       core::format_duration(total), sum > 0 ? 100 * total / sum : 0.0,
                       sum > 0 ? 100 * cumulative / sum : 0.0);
  }
  out << fmt::format("\n**Sum of the parts**: {} ({} distinct calls)\n", core::format_duration(sum),
                     parts.size());
  for (const auto* whole : wholes) {
    if (whole->status == results::Status::ok) {
      out << fmt::format("**Whole {}** (`{}`): {}; parts / whole: {:.2f}\n", whole_kind,
                         label(*whole), core::format_duration(whole->estimate.time),
                         sum / whole->estimate.time);
    } else {
      out << fmt::format("**Whole {}** (`{}`): {}: {}\n", whole_kind, label(*whole),
                         core::name_of(whole->status), whole->message);
    }
  }
}

// The operators inside one call of `whole` as its profiler trace saw them (run --trace), beside
// the parts timed alone: the view from inside the call, dispatch and the sample's own host code
// included (docs/extract.md).
void write_traced(const results::CaseResult& whole, std::ostream& out) {
  TraceProfile profile;
  try {
    Json trace;
    try {
      // (the profiler's own JSON, read as it is: not held to opbench's rules for its inputs)
      trace = Json::parse(core::read_file(whole.trace));
    } catch (const Json::exception& e) {
      throw Error(whole.trace + ": not JSON, a trace cut short? (" + core::first_line(e.what()) +
                  ")");
    }
    profile = profile_of_trace(trace, whole.trace);
  } catch (const std::exception& e) {
    out << "\n**In the profiler**: its trace cannot be read (" << core::first_line(e.what())
        << ")\n";
    return;
  }
  out << fmt::format("\n### In the profiler\n\nThe ATen operators at the top level of one call "
                     "(`{}`, {}), each with the profiler's own cost in it:\n\n",
                     whole.trace,
                     profile.calls > 0 ? fmt::format("{} calls traced", profile.calls)
                                       : std::string("its calls not marked: the whole trace"));
  out << "| rank | operator | calls | time | share of the call |\n|---:|---|---:|---:|---:|\n";
  for (std::size_t i = 0; i < profile.ops.size(); ++i) {
    const TracedOp& op = profile.ops[i];
    out << fmt::format("| {} | `{}` | {:g} | {} | {:.1f}% |\n", i + 1, op.name, op.calls,
                       core::format_duration(op.seconds),
                       profile.call_seconds > 0 ? 100 * op.seconds / profile.call_seconds : 0.0);
  }
  out << fmt::format(
      "\n**ATen at the top level**: {} of the call's {} traced ({:.0f}%); the rest "
      "is the computation's own host code between the calls, and the profiler's. "
      "Timed without the profiler, the call takes {}.\n",
      core::format_duration(profile.op_seconds()), core::format_duration(profile.call_seconds),
      profile.call_seconds > 0 ? 100 * profile.op_seconds() / profile.call_seconds : 0.0,
      core::format_duration(whole.estimate.time));
}

} // namespace

void BreakdownReporter::write(const results::ResultSet& set, std::ostream& out) const {
  // A sample's case is a whole, whose parts are the cases whose source is its key (opbench
  // extract --sample); the other cases are the parts of the model, if any.
  std::map<std::string, Results> sample_wholes;
  for (const auto& r : set.cases) {
    if (r.c.kind == results::Kind::sample)
      sample_wholes[results::case_key(r.c.case_id)].push_back(&r);
  }
  std::map<std::string, Results> sample_parts;
  Results model_parts, models, untimed;
  for (const auto& r : set.cases) {
    const bool timed = r.status == results::Status::ok && std::isfinite(r.estimate.time);
    if (r.c.kind == results::Kind::model) {
      models.push_back(&r);
    } else if (r.c.kind == results::Kind::sample) {
      // a whole: its parts are the cases whose source is its key
    } else if (!timed) {
      untimed.push_back(&r);
    } else if (sample_wholes.count(r.c.source) != 0) {
      sample_parts[r.c.source].push_back(&r);
    } else {
      model_parts.push_back(&r);
    }
  }
  // A sample case with a trace gets its section too, its parts timed alone or not.
  std::map<std::string, Results> traced;
  for (const auto& [key, wholes] : sample_wholes) {
    for (const auto* whole : wholes) {
      if (whole->status == results::Status::ok && !whole->trace.empty())
        traced[key].push_back(whole);
    }
  }
  if (model_parts.empty() && models.empty() && sample_parts.empty() && traced.empty() &&
      untimed.empty()) {
    throw UsageError(
        "this result holds no calls to break down (no operator case timed, no whole model, no "
        "traced sample): run the calls `opbench extract --model M.pt` or `extract --sample NAME` "
        "recorded beside their whole (`run --config CALLS.json --model M.pt ...` or `--samples "
        "NAME`), or a sample with `run --samples NAME --trace DIR` (docs/extract.md)");
  }
  out << "# opbench breakdown\n\n";
  out << "Each call's time is the case's time (its estimator over the repetition medians).\n\n";
  if ((sample_parts.empty() && traced.empty()) || !model_parts.empty() || !models.empty())
    write_parts(model_parts, models, "model", out);
  std::set<std::string> keys;
  for (const auto& [key, parts] : sample_parts)
    keys.insert(key);
  for (const auto& [key, wholes] : traced)
    keys.insert(key);
  for (const auto& key : keys) {
    out << "\n## " << key << "\n\n";
    if (const auto it = sample_parts.find(key); it != sample_parts.end())
      write_parts(it->second, sample_wholes[key], "sample", out);
    for (const auto* whole : traced[key])
      write_traced(*whole, out);
  }
  if (!untimed.empty()) {
    out << "\n## Not timed\n\n| case | calls | status | why |\n|---|---:|---|---|\n";
    for (const auto* r : untimed) {
      out << "| `" << r->c.case_id << "` | " << r->c.count << " | " << core::name_of(r->status)
          << " | " << r->message << " |\n";
    }
  }
}

} // namespace opbench::report
