// The views of an A/B: its file (JSON), Markdown, CSV and JUnit XML.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "opbench/ab/ab.hpp"

#include "ab_text.hpp"
#include "opbench/core/csv_field.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/junit.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::ab {
namespace {

// A number or null (JSON has no NaN).
Json number(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

Json times(const std::vector<double>& values) {
  Json out = Json::array();
  for (double v : values)
    out.push_back(number(v));
  return out;
}

std::string verdict_text(const AbCase& c) {
  const PairedCase& p = c.paired;
  if (p.verdict == results::Verdict::slower)
    return "**slower**";
  if (p.verdict != results::Verdict::unknown)
    return core::name_of(p.verdict);
  return "unknown (" + core::markdown_cell(reason_of(c)) + ")";
}

} // namespace

Json to_json(const AbResult& result) {
  const AbSettings& s = result.settings;
  Json sides = Json::object();
  for (const auto* side : {&s.base, &s.new_side}) {
    sides[side == &s.base ? "base" : "new"] = {
        {"binary", side->binary}, {"version", side->version}, {"libraries", side->libraries}};
  }
  sides["base"]["context"] = result.base_context;
  sides["new"]["context"] = result.new_context;
  Json cases = Json::array();
  for (const auto& c : result.cases) {
    const PairedCase& p = c.paired;
    Json j = {{"case", results::to_json(c.c)},
              {"base", times(p.base)},
              {"new", times(p.new_times)},
              {"pairs", p.pairs},
              {"verdict", core::name_of(p.verdict)},
              {"reason", p.reason},
              {"ratio", number(p.ratio)},
              {"ratio_low", number(p.low)},
              {"ratio_high", number(p.high)},
              {"level", number(p.level)},
              {"p_value", number(p.p_value)},
              {"seeable_change", number(p.seeable)},
              {"memory", results::to_json(p.memory)}};
    if (!c.base_error.empty())
      j["base_error"] = c.base_error;
    if (!c.new_error.empty())
      j["new_error"] = c.new_error;
    cases.push_back(std::move(j));
  }
  Json runs = Json::array();
  for (const auto& r : result.runs) {
    runs.push_back({{"round", r.round},
                    {"block", r.block},
                    {"side", r.side},
                    {"result", r.result},
                    {"log", r.log},
                    {"how", r.how},
                    {"seconds", r.seconds},
                    {"cpus", r.cpus}});
  }
  const results::VerdictCounts counts = result.counts();
  return {{"kind", "opbench-ab"},
          {"schema_version", results::k_schema_version},
          {"command_line", result.command_line},
          {"settings",
           {{"rounds", s.rounds},
            {"rounds_done", result.rounds_done},
            {"block_cases", s.block_cases},
            {"side_repetitions", s.side_repetitions},
            {"schedule", core::name_of(s.schedule)},
            {"stop_after", s.stop_after},
            {"precision", s.precision},
            {"budget", s.budget},
            {"ended", result.ended},
            {"seed", s.seed},
            {"threshold", s.verdict.threshold},
            {"fdr", s.verdict.fdr},
            {"min_rounds", s.verdict.min_rounds},
            {"work_dir", s.work_dir}}},
          {"interrupted", result.interrupted},
          {"sides", sides},
          {"suite",
           {{"ratio", number(result.suite.ratio)},
            {"ratio_low", number(result.suite.low)},
            {"ratio_high", number(result.suite.high)},
            {"cases", result.suite.cases},
            {"rounds", result.suite.rounds}}},
          {"counts",
           {{"slower", counts.slower},
            {"faster", counts.faster},
            {"same", counts.same},
            {"unknown", counts.unknown},
            {"more_memory", counts.more_memory},
            {"less_memory", counts.less_memory}}},
          {"notes", result.notes},
          {"cases", cases},
          {"runs", runs}};
}

void write_markdown(const AbResult& result, std::ostream& out) {
  const AbSettings& s = result.settings;
  out << "# opbench ab\n\n";
  out << "- **base**: " << s.base.binary << " (" << s.base.version << ")"
      << (s.base.libraries.empty() ? "" : ", loading " + core::join(s.base.libraries, ", "))
      << "\n";
  out << "- **new**: " << s.new_side.binary << " (" << s.new_side.version << ")"
      << (s.new_side.libraries.empty() ? "" : ", loading " + core::join(s.new_side.libraries, ", "))
      << "\n";
  out << fmt::format(
      "- **rounds**: {} of at most {}{}, each a fresh process of each side per "
      "block of at most {} cases, {}; a case found the same{} after {} rounds measured "
      "no more\n",
      result.rounds_done, s.rounds,
      result.interrupted     ? " (interrupted)"
      : result.ended.empty() ? ""
                             : " (" + result.ended + ")",
      s.block_cases,
      s.schedule == Schedule::duet
          ? "both sides at once on disjoint halves of the CPUs (duet), the halves "
            "drawn per round and block"
          : "the sides' order drawn per round and block",
      s.precision > 0 ? fmt::format(" within {:.1f}%", s.precision * 100) : "", s.stop_after);
  out << fmt::format("- **rule**: per case, the rounds' paired ratios new / base; slower/faster "
                     "when the interval of their geometric mean lies past {:.1f}% with the false-"
                     "discovery rate held at {:g} over all cases; same when its {:g}% interval "
                     "lies within\n",
                     s.verdict.threshold * 100, s.verdict.fdr, (1 - s.verdict.fdr) * 100);
  for (const auto& note : result.notes)
    out << "- **note**: " << note << "\n";
  out << "\n| case | base | new | ratio | interval | verdict | memory (peak) |\n";
  out << "|---|---:|---:|---:|---|---|---|\n";
  for (const auto& c : result.cases) {
    const PairedCase& p = c.paired;
    out << "| `" << core::markdown_code_cell(c.c.case_id) << "` | "
        << core::format_duration(typical(p.base)) << " | "
        << core::format_duration(typical(p.new_times)) << " | " << ratio_text(p.ratio) << " | "
        << interval_text(p) << " | " << verdict_text(c) << " | " << results::markdown_cell(p.memory)
        << " |\n";
  }
  const results::VerdictCounts n = result.counts();
  out << fmt::format("\n**{} slower, {} faster, {} same, {} unknown**; the suite's geometric mean "
                     "ratio: {}",
                     n.slower, n.faster, n.same, n.unknown, ratio_text(result.suite.ratio));
  if (std::isfinite(result.suite.low))
    out << fmt::format(" [{:.3f}, {:.3f}] over {} case(s) paired in all {} rounds",
                       result.suite.low, result.suite.high, result.suite.cases,
                       result.suite.rounds);
  out << fmt::format("\n\n**Memory: {} more, {} less, {} same, {} unknown**\n", n.more_memory,
                     n.less_memory, n.same_memory, n.unknown_memory);
}

void write_csv(const AbResult& result, std::ostream& out) {
  out << "case_id,verdict,pairs,ratio,ratio_low,ratio_high,level,p_value,seeable_change,base_"
         "seconds,new_seconds,memory,reason\n";
  auto num = [](double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : std::string(); };
  for (const auto& c : result.cases) {
    const PairedCase& p = c.paired;
    out << core::csv_field(c.c.case_id) << "," << core::name_of(p.verdict) << "," << p.pairs << ","
        << num(p.ratio) << "," << num(p.low) << "," << num(p.high) << "," << num(p.level) << ","
        << num(p.p_value) << "," << num(p.seeable) << "," << num(typical(p.base)) << ","
        << num(typical(p.new_times)) << "," << core::name_of(p.memory.verdict) << ","
        << core::csv_field(p.reason) << "\n";
  }
}

void write_junit(const AbResult& result, std::ostream& out) {
  using Outcome = core::JunitCase::Outcome;
  const AbSettings& s = result.settings;
  core::JunitSuite suite;
  suite.name = "opbench ab";
  suite.properties = {{"base", s.base.binary},
                      {"new", s.new_side.binary},
                      {"rounds", std::to_string(result.rounds_done)},
                      {"threshold", fmt::format("{}", s.verdict.threshold)},
                      {"fdr", fmt::format("{}", s.verdict.fdr)}};
  for (const auto& c : result.cases) {
    const PairedCase& p = c.paired;
    core::JunitCase t;
    t.classname = "opbench." + c.c.case_id.substr(0, c.c.case_id.find('/'));
    t.name = c.c.case_id;
    t.seconds = typical(p.new_times);
    if (!std::isfinite(t.seconds))
      t.seconds = -1;
    if (p.verdict == results::Verdict::slower) {
      t.outcome = Outcome::failed;
      t.type = "slower";
      t.message = fmt::format("slower: x{:.3f}, interval {} past the {:.1f}% threshold", p.ratio,
                              interval_text(p), s.verdict.threshold * 100);
      t.detail = fmt::format("{} paired rounds; p {:.3g}", p.pairs, p.p_value);
    } else if (p.verdict == results::Verdict::unknown &&
               p.memory.verdict != results::MemoryVerdict::more) {
      t.outcome = Outcome::skipped;
      t.message = "unknown: " + p.reason;
    }
    results::add_memory_failure(t, p.memory);
    suite.cases.push_back(std::move(t));
  }
  for (const auto& note : result.notes)
    suite.system_out += note + "\n";
  core::write_junit(suite, out);
}

namespace {

// A number of the file: a finite number, or NaN for null; a ResultsError otherwise.
double number_of(const Json& value, const std::string& where) {
  if (value.is_null())
    return std::nan("");
  if (!value.is_number() || !std::isfinite(value.get<double>()))
    throw ResultsError(where + ": expected a number or null, found " + value.dump());
  return value.get<double>();
}

std::vector<double> times_of(const Json& value, const std::string& where) {
  if (!value.is_array())
    throw ResultsError(where + ": expected an array of times, found " + value.dump());
  std::vector<double> out;
  for (const auto& v : value)
    out.push_back(number_of(v, where));
  return out;
}

std::int64_t bytes_of(const Json& memory, const char* key) {
  return memory.contains(key) && memory[key].is_number_integer() ? memory[key].get<std::int64_t>()
                                                                 : -1;
}

} // namespace

AbResult load_ab(const std::string& path) {
  std::string text;
  try {
    text = core::read_file(path);
  } catch (const Error& e) {
    throw ResultsError(e.what());
  }
  std::string error;
  const std::optional<Json> json = core::parse_json(text, &error);
  if (!json)
    throw ResultsError(path + ": " + error);
  return ab_from_json(*json, path);
}

AbResult ab_from_json(const Json& json, const std::string& where) {
  if (!json.is_object() || json.value("kind", Json()) != "opbench-ab")
    throw ResultsError(where + ": not an opbench ab file (no \"kind\": \"opbench-ab\")");
  if (core::integer_field(json, "schema_version", 0, where) > results::k_schema_version) {
    throw ResultsError(where + ": schema_version " + json["schema_version"].dump() +
                       " is newer than this opbench reads");
  }
  AbResult r;
  const Json settings = json.value("settings", Json::object());
  const std::string in_settings = where + ": settings";
  AbSettings& s = r.settings;
  s.rounds = static_cast<int>(core::integer_field(settings, "rounds", 0, in_settings, 0, 100000));
  r.rounds_done =
      static_cast<int>(core::integer_field(settings, "rounds_done", 0, in_settings, 0, 100000));
  s.block_cases = static_cast<std::size_t>(
      core::integer_field(settings, "block_cases", 0, in_settings, 0, 1000000000));
  s.side_repetitions = static_cast<int>(
      core::integer_field(settings, "side_repetitions", 1, in_settings, 1, 100000));
  s.stop_after =
      static_cast<int>(core::integer_field(settings, "stop_after", 0, in_settings, 0, 100000));
  // Files from before --precision stopped a case as soon as it was found the same.
  s.precision = number_of(settings.value("precision", Json(0.0)), in_settings);
  // Files from before duets were interleaved.
  s.schedule = settings.contains("schedule")
                   ? core::parse_name_or_throw<Schedule>(
                         settings["schedule"].is_string() ? settings["schedule"].get<std::string>()
                                                          : settings["schedule"].dump(),
                         "schedule", in_settings)
                   : Schedule::interleaved;
  s.verdict.threshold = number_of(settings.value("threshold", Json(0.05)), in_settings);
  s.verdict.fdr = number_of(settings.value("fdr", Json(0.05)), in_settings);
  s.verdict.min_rounds = static_cast<std::size_t>(
      core::integer_field(settings, "min_rounds", 3, in_settings, 1, 100000));
  s.work_dir = core::text_field(settings, "work_dir");
  r.ended = core::text_field(settings, "ended");
  r.command_line = core::text_field(json, "command_line");
  r.interrupted = json.value("interrupted", false);
  const Json sides = json.value("sides", Json::object());
  for (auto* side : {&s.base, &s.new_side}) {
    const Json one = sides.value(side == &s.base ? "base" : "new", Json::object());
    side->binary = core::text_field(one, "binary");
    side->version = core::text_field(one, "version");
    for (const auto& l : one.value("libraries", Json::array()))
      side->libraries.push_back(l.is_string() ? l.get<std::string>() : l.dump());
    (side == &s.base ? r.base_context : r.new_context) = one.value("context", Json::object());
  }
  for (const auto& n : json.value("notes", Json::array()))
    r.notes.push_back(n.is_string() ? n.get<std::string>() : n.dump());
  const Json cases = json.value("cases", Json::array());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string at = where + ": cases[" + std::to_string(i) + "]";
    const Json& c = cases[i];
    if (!c.is_object() || !c.contains("case"))
      throw ResultsError(at + ": expected an object with its case");
    AbCase one;
    one.c = results::case_from_json(c["case"], at);
    one.paired.case_id = one.c.case_id;
    one.paired.base = times_of(c.value("base", Json::array()), at + ": base");
    one.paired.new_times = times_of(c.value("new", Json::array()), at + ": new");
    one.base_error = core::text_field(c, "base_error");
    one.new_error = core::text_field(c, "new_error");
    const Json memory = c.value("memory", Json::object());
    results::MemoryChange& m = one.paired.memory;
    if (const std::string v = core::text_field(memory, "verdict"); !v.empty())
      m.verdict = core::parse_name_or_throw<results::MemoryVerdict>(v, "memory verdict", at);
    m.reason = core::text_field(memory, "reason");
    m.base_peak = bytes_of(memory, "base_peak_bytes");
    m.new_peak = bytes_of(memory, "new_peak_bytes");
    m.base_total = bytes_of(memory, "base_total_bytes");
    m.new_total = bytes_of(memory, "new_total_bytes");
    m.tolerance = std::max<std::int64_t>(0, bytes_of(memory, "tolerance_bytes"));
    r.cases.push_back(std::move(one));
  }
  for (const auto& run : json.value("runs", Json::array())) {
    SideRun sr;
    sr.round = static_cast<int>(core::integer_field(run, "round", 0, where + ": runs"));
    sr.block = static_cast<int>(core::integer_field(run, "block", 0, where + ": runs"));
    sr.side = core::text_field(run, "side");
    sr.result = core::text_field(run, "result");
    sr.log = core::text_field(run, "log");
    sr.how = core::text_field(run, "how");
    sr.seconds =
        run.contains("seconds") && run["seconds"].is_number() ? run["seconds"].get<double>() : 0;
    for (const auto& cpu : run.value("cpus", Json::array())) {
      if (!cpu.is_number_integer())
        throw ResultsError(where + ": runs: cpus holds " + cpu.dump() + ", not a CPU number");
      sr.cpus.push_back(cpu.get<int>());
    }
    r.runs.push_back(sr);
  }
  judge(r); // the verdicts again, from the times, by the file's own settings
  return r;
}

const std::vector<core::Format<AbResult>>& ab_formats() {
  static const std::vector<core::Format<AbResult>> formats = {
      {"md", [](const AbResult& r, std::ostream& out) { write_markdown(r, out); }},
      {"json", [](const AbResult& r, std::ostream& out) { out << to_json(r).dump(1) << "\n"; }},
      {"csv", [](const AbResult& r, std::ostream& out) { write_csv(r, out); }},
      {"junit", [](const AbResult& r, std::ostream& out) { write_junit(r, out); }},
      {"html", [](const AbResult& r, std::ostream& out) { write_html(r, out); }}};
  return formats;
}

} // namespace opbench::ab
