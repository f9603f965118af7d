// `opbench replay` (replay.hpp): the sizes file, the replay's record and its views, and the
// stages' processes. The calls themselves: replay_calls.cpp.
#include "opbench/replay/replay.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/names.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/results/vocabulary.hpp"
#include "opbench/run/child_runs.hpp"
#include "opbench/run/interrupt.hpp"
#include "opbench/run/settings.hpp"

namespace opbench::replay {

namespace {

constexpr std::pair<CallStatus, const char*> k_call_statuses[] = {{CallStatus::ok, "ok"},
                                                                  {CallStatus::refused, "refused"},
                                                                  {CallStatus::differs, "differs"},
                                                                  {CallStatus::skipped, "skipped"},
                                                                  {CallStatus::error, "error"}};

std::string status_name(CallStatus status) {
  for (const auto& [value, name] : k_call_statuses)
    if (value == status)
      return name;
  return "error";
}

CallStatus status_named(const std::string& text) {
  for (const auto& [value, name] : k_call_statuses)
    if (text == name)
      return value;
  throw ConfigError("a replay part: unknown call status '" + text + "'");
}

} // namespace

std::string SizeSet::text() const {
  return core::join(axes, " ");
}

std::vector<SizeSet> read_sizes(const std::string& path) {
  std::istringstream in(core::read_file(path));
  std::vector<SizeSet> sets;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    const std::string trimmed = core::trim(text);
    if (trimmed.empty() || trimmed.front() == '#')
      continue;
    SizeSet set;
    set.line = line;
    std::istringstream pairs(trimmed);
    for (std::string pair; pairs >> pair;) {
      const auto equals = pair.find('=');
      const bool sized = equals != std::string::npos && equals > 0 && equals + 1 < pair.size() &&
                         pair.find_first_of(",:", equals) == std::string::npos;
      if (!sized) {
        throw ConfigError(path + ":" + std::to_string(line) +
                          ": expected NAME=SIZE pairs separated by spaces (one size each, e.g. "
                          "boxes1=1000 boxes2=200), got '" +
                          core::printable(pair) + "'");
      }
      set.axes.push_back(pair);
    }
    sets.push_back(std::move(set));
  }
  if (sets.empty())
    throw ConfigError(path + ": no size set in it (one a line: NAME=SIZE pairs)");
  return sets;
}

StageTotals totals_of(const StageReplay& stage) {
  StageTotals t;
  for (const ReplayCall& call : stage.calls) {
    ++t.calls;
    t.refused += call.status == CallStatus::refused ? 1 : 0;
    t.differ += call.status == CallStatus::differs ? 1 : 0;
    t.failed += call.status == CallStatus::error ? 1 : 0;
    t.skipped += call.status == CallStatus::skipped ? 1 : 0;
    if (call.plans) {
      t.counts_plans = true;
      t.compiles += call.compiled;
    }
    if (!call.seconds)
      continue;
    ++t.timed;
    t.seconds += *call.seconds;
    if (!call.steady)
      continue;
    ++t.steadied;
    t.steadied_seconds += *call.seconds;
    t.steady += *call.steady;
    if (call.first_at_size) {
      ++t.first_calls;
      t.first_seconds += *call.seconds;
      t.first_steady += *call.steady;
    }
  }
  t.recompiles = std::max(0, t.compiles - 1);
  return t;
}

namespace {

Json optional_number(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

std::optional<double> number_at(const Json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null())
    return std::nullopt;
  return j.at(key).get<double>();
}

std::string ratio_text(double part, double whole) {
  if (!(whole > 0))
    return "n/a";
  std::ostringstream out;
  out << "x" << std::fixed << std::setprecision(2) << part / whole;
  return out.str();
}

} // namespace

Json to_json(const ReplayCall& c) {
  Json j = {{"line", c.line},
            {"case_id", c.case_id},
            {"status", status_name(c.status)},
            {"seconds", optional_number(c.seconds)},
            {"steady_seconds", optional_number(c.steady)},
            {"first_at_size", c.first_at_size}};
  if (!c.message.empty())
    j["message"] = c.message;
  if (c.plans) {
    j["plans"] = *c.plans;
    j["compiled"] = c.compiled;
  }
  return j;
}

ReplayCall call_from_json(const Json& c) {
  ReplayCall call;
  call.line = c.at("line").get<int>();
  call.case_id = c.at("case_id").get<std::string>();
  call.status = status_named(c.at("status").get<std::string>());
  call.message = c.value("message", std::string());
  call.seconds = number_at(c, "seconds");
  call.steady = number_at(c, "steady_seconds");
  call.first_at_size = c.at("first_at_size").get<bool>();
  if (c.contains("plans")) {
    call.plans = c.at("plans").get<int>();
    call.compiled = c.at("compiled").get<int>();
  }
  return call;
}

Json to_json(const StageReplay& stage) {
  Json calls = Json::array();
  for (const ReplayCall& c : stage.calls)
    calls.push_back(to_json(c));
  const StageTotals t = totals_of(stage);
  Json totals = {{"calls", t.calls},
                 {"timed", t.timed},
                 {"refused", t.refused},
                 {"differ", t.differ},
                 {"skipped", t.skipped},
                 {"failed", t.failed},
                 {"seconds", t.seconds},
                 {"steadied", t.steadied},
                 {"steadied_seconds", t.steadied_seconds},
                 {"steady_seconds", t.steady},
                 {"first_calls", t.first_calls},
                 {"first_seconds", t.first_seconds},
                 {"first_steady_seconds", t.first_steady}};
  if (t.counts_plans) {
    totals["compiles"] = t.compiles;
    totals["recompiles"] = t.recompiles;
  }
  return {{"stage", core::name_of(stage.stage)},
          {"ok", stage.ok},
          {"skipped", stage.skipped},
          {"message", stage.message},
          {"runner", stage.runner},
          {"made_from", stage.made_from},
          {"made_in_seconds", stage.made_in},
          {"cached", stage.cached},
          {"steady_calls", stage.steady_calls},
          {"calls", std::move(calls)},
          {"totals", std::move(totals)}};
}

StageReplay stage_from_json(const Json& j) {
  try {
    StageReplay stage;
    stage.stage = core::parse_name_or_throw<results::Stage>(j.at("stage").get<std::string>(),
                                                            "stage", "a replay part");
    stage.ok = j.at("ok").get<bool>();
    stage.skipped = j.at("skipped").get<bool>();
    stage.message = j.at("message").get<std::string>();
    stage.runner = j.at("runner").get<std::string>();
    stage.made_from = j.at("made_from").get<std::string>();
    stage.made_in = j.at("made_in_seconds").get<double>();
    stage.cached = j.at("cached").get<bool>();
    stage.steady_calls = j.at("steady_calls").get<int>();
    for (const Json& c : j.at("calls"))
      stage.calls.push_back(call_from_json(c));
    return stage;
  } catch (const Json::exception& e) {
    throw ConfigError(std::string("a replay part: ") + e.what());
  }
}

Json to_json(const Replay& replay) {
  Json sizes = Json::array();
  for (const SizeSet& set : replay.sizes)
    sizes.push_back({{"line", set.line}, {"sizes", set.text()}});
  Json stages = Json::array();
  for (const StageReplay& stage : replay.stages)
    stages.push_back(to_json(stage));
  return {{"schema", "opbench-replay-1"},
          {"sizes_file", replay.sizes_file},
          {"sizes", std::move(sizes)},
          {"context", replay.context},
          {"stages", std::move(stages)}};
}

void replay(Replay& out, const std::vector<results::Stage>& stages,
            const std::function<ChildCommand(results::Stage, const std::string& part)>& child,
            const std::function<void(const Replay&)>& done, double call_limit) {
  const std::string scratch = core::make_temp_directory("opbench-replay-");
  const run::InterruptGuard guard;
  for (const results::Stage stage : stages) {
    if ((out.interrupted = run::interrupted()) != 0)
      break;
    const std::string part = core::join_path(scratch, core::name_of(stage) + ".json");
    const std::string log = core::join_path(scratch, core::name_of(stage) + ".log");
    const ChildCommand command = child(stage, part);
    const run::ChildExit exit =
        run::run_program(command.program, command.args, "", log,
                         run::HoldLimits{part + ".hold", call_limit, run::k_compile_timeout});
    StageReplay result;
    try {
      const std::optional<Json> parsed = core::parse_json(core::read_file(part));
      if (!parsed)
        throw ConfigError(part + ": not JSON");
      result = stage_from_json(*parsed);
    } catch (const std::exception&) {
      const std::string said = run::last_words(log);
      const std::string how =
          exit.timed_out
              ? "it held one call past " + core::format_duration(exit.limit) + " and was stopped"
              : run::describe(exit) + (said.empty() ? "" : ": " + said);
      result = kept_calls(stage, part + ".journal", how);
    }
    out.stages.push_back(std::move(result));
    done(out);
  }
  core::remove_all(scratch);
  out.interrupted = run::interrupted();
}

StageReplay kept_calls(results::Stage stage, const std::string& journal, const std::string& how) {
  StageReplay kept;
  kept.stage = stage;
  kept.ok = false;
  std::string text;
  try {
    text = core::read_file(journal);
  } catch (const std::exception&) {
  }
  std::istringstream lines(text);
  std::optional<ReplayCall> in_call;
  for (std::string line; std::getline(lines, line);) {
    const std::optional<Json> j = core::parse_json(line);
    if (!j || !j->is_object())
      break; // a line cut short by the end
    try {
      if (j->contains("made")) {
        const Json& made = j->at("made");
        kept.runner = made.at("runner").get<std::string>();
        kept.made_from = made.at("made_from").get<std::string>();
        kept.made_in = made.at("made_in_seconds").get<double>();
        kept.cached = made.at("cached").get<bool>();
      } else if (j->contains("starting")) {
        in_call = ReplayCall{};
        in_call->line = j->at("line").get<int>();
        in_call->case_id = j->at("case_id").get<std::string>();
        in_call->first_at_size = j->at("first_at_size").get<bool>();
      } else {
        kept.calls.push_back(call_from_json(*j));
        in_call.reset();
      }
    } catch (const std::exception&) {
      break;
    }
  }
  if (in_call) {
    in_call->status = CallStatus::error;
    in_call->message = "the stage's process ended in this call (" + how + ")";
    kept.calls.push_back(*in_call);
    kept.message = "its process ended in the call of line " + std::to_string(in_call->line) + " (" +
                   how + "); " + std::to_string(kept.calls.size() - 1) +
                   " call(s) before it kept, the rest not made";
  } else {
    kept.message = "its process ended without its replay (" + how + ")" +
                   (kept.calls.empty() ? ""
                                       : "; " + std::to_string(kept.calls.size()) +
                                             " call(s) kept, without steady times");
  }
  return kept;
}

std::string summary_line(const StageReplay& stage) {
  const std::string name = core::name_of(stage.stage);
  if (!stage.ok && stage.calls.empty())
    return name + (stage.skipped ? ": skipped: " : ": not replayed: ") + stage.message;
  const StageTotals t = totals_of(stage);
  std::ostringstream out;
  out << name << ": " << t.timed << " of " << t.calls << " calls timed, "
      << core::format_duration(t.seconds) << " in all";
  if (t.steadied == t.timed && t.timed > 0) {
    out << " against " << core::format_duration(t.steady) << " at the steady time of their sizes ("
        << ratio_text(t.seconds, t.steady) << "); the first call at each of " << t.first_calls
        << " sizes " << ratio_text(t.first_seconds, t.first_steady) << " its steady time";
  } else if (t.timed > 0) {
    out << " (" << t.steadied << " with a steady time: " << ratio_text(t.steadied_seconds, t.steady)
        << " of it)";
  }
  if (t.counts_plans)
    out << "; " << t.compiles << " plan(s) compiled, " << t.recompiles << " recompile(s)";
  if (t.refused > 0)
    out << "; " << t.refused << " refused";
  if (t.differ > 0)
    out << "; " << t.differ << " differ from eager";
  if (t.skipped > 0)
    out << "; " << t.skipped << " skipped";
  if (t.failed > 0)
    out << "; " << t.failed << " failed";
  if (stage.stage != results::Stage::eager) {
    out << (stage.cached ? "; taken from the cache (made in " : "; made in ")
        << core::format_duration(stage.made_in) << (stage.cached ? " when compiled)" : "")
        << " before the first call";
  }
  if (!stage.ok)
    out << "; stopped: " << stage.message;
  return out.str();
}

std::string markdown(const Replay& replay) {
  std::ostringstream out;
  out << "# Replay of " << core::markdown_cell(replay.sizes_file) << "\n\n"
      << replay.sizes.size() << " size set(s), each call timed once, then the steady time at its "
      << "size.\n\n| stage | calls | in all | steady | in all / steady | first calls / steady | "
         "plans compiled | refused | differ |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const StageReplay& stage : replay.stages) {
    if (!stage.ok && stage.calls.empty()) {
      out << "| " << core::name_of(stage.stage)
          << (stage.skipped ? " | skipped: " : " | not replayed: ")
          << core::markdown_cell(stage.message) << " | | | | | | | |\n";
      continue;
    }
    const StageTotals t = totals_of(stage);
    out << "| " << core::name_of(stage.stage) << " | " << t.timed << " | "
        << core::format_duration(t.seconds) << " | " << core::format_duration(t.steady) << " | "
        << ratio_text(t.steadied_seconds, t.steady) << " | "
        << ratio_text(t.first_seconds, t.first_steady) << " | "
        << (t.counts_plans ? std::to_string(t.compiles) : "-") << " | " << t.refused << " | "
        << t.differ << " |\n";
  }
  for (const StageReplay& stage : replay.stages) {
    if (!stage.ok && stage.calls.empty())
      continue;
    out << "\n## " << core::name_of(stage.stage) << " (" << core::markdown_cell(stage.runner)
        << ")\n\n"
        << (stage.ok ? "" : "Stopped: " + core::markdown_cell(stage.message) + "\n\n")
        << "| line | case | call | steady | call / steady | plans | status |\n"
        << "|---:|---|---:|---:|---:|---:|---|\n";
    for (const ReplayCall& c : stage.calls) {
      out << "| " << c.line << " | " << core::markdown_code_cell(c.case_id) << " | "
          << (c.seconds ? core::format_duration(*c.seconds) : "-") << " | "
          << (c.steady ? core::format_duration(*c.steady) : "-") << " | "
          << (c.seconds && c.steady ? ratio_text(*c.seconds, *c.steady) : "-") << " | "
          << (c.plans ? std::to_string(*c.plans) +
                            (c.compiled > 0 ? " (+" + std::to_string(c.compiled) + ")" : "")
                      : "-")
          << " | " << status_name(c.status)
          << (c.message.empty() ? "" : ": " + core::markdown_cell(c.message)) << " |\n";
    }
  }
  return out.str();
}

} // namespace opbench::replay
