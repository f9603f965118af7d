// JSON, Markdown, CSV and JUnit views of the nightly gate's result.
#include <fmt/format.h>

#include <cmath>

#include "opbench/core/csv_field.hpp"
#include "opbench/core/junit.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/core/units.hpp"
#include "opbench/gate/gate.hpp"

namespace opbench::gate {
namespace {

Json number(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

std::string percent(double ratio) {
  return std::isfinite(ratio) ? fmt::format("{:+.1f}%", (ratio - 1.0) * 100) : "-";
}

} // namespace

const std::vector<core::Format<GateResult>>& gate_formats() {
  static const std::vector<core::Format<GateResult>> k_formats = {
      {"md", write_gate_markdown},
      {"json", [](const GateResult& r, std::ostream& out) { out << to_json(r).dump(2) << "\n"; }},
      {"csv", write_gate_csv},
      {"junit", write_gate_junit}};
  return k_formats;
}

Json to_json(const GateResult& result) {
  const auto& o = result.options;
  Json out = Json::object();
  out["rule"] = {{"window", o.window},
                 {"min_history", o.min_history},
                 {"alpha", o.alpha},
                 {"look_alpha", o.look_alpha},
                 {"confirm_fdr", o.confirm_fdr},
                 {"effect_floor", o.effect_floor},
                 {"noise_floor", o.noise_floor},
                 {"power", o.power},
                 {"blind_above", o.blind_above},
                 {"change_segment", o.change_segment},
                 {"change_alpha", o.change_alpha}};
  out["second_look_taken"] = result.looked; // per case, "second_look" says whether it asked for one
  out["confirmed"] = result.confirmed;
  out["confirmation"] = !result.confirmed ? "none"
                        : result.ab       ? "a/b against the previous build"
                                          : "against the history";
  out["regressed"] = result.regressed();
  out["more_memory"] = result.more_memory();
  Json memory_counts = Json::object();
  for (const auto& [verdict, name] : core::NameTable<results::MemoryVerdict>::k_names)
    memory_counts[std::string(name)] = result.count(verdict);
  out["memory_counts"] = memory_counts;
  out["counts"] = {{"second_looks", result.second_looks()},
                   {"candidates", result.candidates()},
                   {"slower", result.count(results::Verdict::slower)},
                   {"faster", result.count(results::Verdict::faster)},
                   {"same", result.count(results::Verdict::same)},
                   {"unknown", result.count(results::Verdict::unknown)},
                   {"blind", result.blind()},
                   {"called_otherwise", result.called_otherwise()}};
  Json cases = Json::array();
  for (const auto& c : result.cases) {
    cases.push_back({{"case_id", c.case_id},
                     {"verdict", core::name_of(c.verdict)},
                     {"reason", c.reason},
                     {"candidate", c.candidate},
                     {"nights", c.nights},
                     {"change_nights", c.change_nights},
                     {"change_ratio", number(c.change_ratio)},
                     {"baseline", number(c.baseline)},
                     {"noise", number(c.noise)},
                     {"low", number(c.low)},
                     {"high", number(c.high)},
                     {"tonight", number(c.tonight)},
                     {"ratio", number(c.ratio)},
                     {"t", number(c.t)},
                     {"p_value", number(c.p_value)},
                     {"second_look", c.second_look},
                     {"second", number(c.second)},
                     {"look_ratio", number(c.look_ratio)},
                     {"look_p", number(c.look_p)},
                     {"mde", number(c.mde)},
                     {"blind", c.blind},
                     {"confirm_ratio", number(c.confirm_ratio)},
                     {"confirm_p", number(c.confirm_p)},
                     {"memory", results::to_json(c.memory)},
                     {"accepted", c.accepted},
                     {"held_out", c.held_out},
                     {"failed", c.failed},
                     {"floor", c.floor},
                     {"floor_rule", c.floor_rule}});
  }
  out["cases"] = cases;
  out["notes"] = result.notes;
  return out;
}

void write_gate_markdown(const GateResult& result, std::ostream& out) {
  const auto& o = result.options;
  out << "# opbench nightly gate\n\n";
  for (const auto& note : result.notes)
    out << "- **note**: " << note << "\n";
  out << fmt::format(
      "- **rule**: each case against its own last {} nights (at least {}) that timed the same "
      "thing (GPU, batch or "
      "host time) with the case called the same way (typed or boxed) on the same host allocator, "
      "nights held out left out: "
      "baseline = their median, noise = their robust sd in log space (the larger of 1.4826 MAD "
      "and (q90 - q10) / 2.563, at least {:.1f}%); a *candidate* when "
      "tonight's "
      "two-sided p < {} (Student's t, a new value against the nights) and it moved by {:.0f}% or "
      "more; "
      "*slower* / *faster* only when a second measurement confirms it (Benjamini-Hochberg at {} "
      "over the "
      "candidates, same direction, past the floor)\n",
      o.window, o.min_history, o.noise_floor * 100, o.alpha, o.effect_floor * 100, o.confirm_fdr);
  out << fmt::format(
      "- **second look**: a case with p < {} tonight is measured again the same night (fresh "
      "processes, same settings) and is a candidate only if the geometric mean of both values "
      "passes the rule above with half a night's variance{}\n",
      o.look_level(), result.looked ? "" : " (not taken for this report)");
  out << fmt::format(
      "- **change points**: a level that changed inside the window (rank test at {} over the "
      "splits, at least {} nights on each side, {:.0f}% or more) and held for {} nights or more "
      "replaces the window: such a case is judged against the nights since (`nights` says so)\n",
      o.change_alpha, o.change_segment, o.effect_floor * 100, o.min_history);
  out << fmt::format(
      "- **minimum detectable effect** (MDE): the change caught with probability {:.0f}% from one "
      "night{}; *blind* when over {:.0f}%, and a blind case is *unknown*, never *same*\n",
      o.power * 100, result.looked ? " and its second look" : "", o.blind_above * 100);
  out << fmt::format(
      "- **result**: {} second look(s), {} candidate(s){}; {} slower, {} faster, {} same, {} "
      "unknown{}; "
      "{} blind\n\n",
      result.second_looks(), result.candidates(),
      !result.confirmed ? ", not confirmed yet"
      : result.ab       ? ", confirmed A/B against the previous build's binary"
                        : ", confirmation run",
      result.count(results::Verdict::slower), result.count(results::Verdict::faster),
      result.count(results::Verdict::same), result.count(results::Verdict::unknown),
      result.called_otherwise() == 0 ? std::string()
                                     : fmt::format(" ({} called or measured another way than their "
                                                   "history: opbench's change, not the code's)",
                                                   result.called_otherwise()),
      result.blind());
  using results::MemoryVerdict;
  out << fmt::format("- **memory**: tonight's peak and total allocated bytes of each call against "
                     "the newest night that probed them on this LibTorch and input seed, exactly "
                     "(0 bytes on the CPU, the caching allocator's rounding on CUDA): {} more "
                     "memory, {} less, {} same, {} unknown\n\n",
                     result.count(MemoryVerdict::more), result.count(MemoryVerdict::less),
                     result.count(MemoryVerdict::same), result.count(MemoryVerdict::unknown));
  auto row = [&](const GateCase& c) {
    out << "| `" << core::markdown_code_cell(c.case_id) << "` | "
        << core::format_duration(c.baseline) << " | " << core::format_duration(c.tonight) << " | "
        << percent(c.ratio) << " | "
        << (std::isfinite(c.p_value) ? fmt::format("{:.2g}", c.p_value) : "-") << " | "
        << (std::isfinite(c.look_ratio)
                ? fmt::format("{} (p {:.2g})", percent(c.look_ratio), c.look_p)
                : "-")
        << " | " << (std::isfinite(c.confirm_ratio) ? percent(c.confirm_ratio) : "-") << " | "
        << (std::isfinite(c.noise) ? fmt::format("{:.1f}%", c.noise * 100) : "-") << " | "
        << (std::isfinite(c.mde) ? fmt::format("{:.1f}%{}", c.mde * 100, c.blind ? " (blind)" : "")
                                 : "-")
        << " | " << c.nights << (c.held_out == 0 ? "" : fmt::format(" ({} held out)", c.held_out))
        << (c.accepted.empty() ? ""
                               : " (accepted level from " + core::markdown_cell(c.accepted) + ")")
        << (c.change_nights > 0
                ? fmt::format(" (level ×{:.2f} since {} nights)", c.change_ratio, c.change_nights)
                : "")
        << " | "
        << (c.verdict == results::Verdict::slower ? "**slower**" : core::name_of(c.verdict))
        << (c.reason.empty() ? "" : " (" + core::markdown_cell(c.reason) + ")")
        << (c.floor_rule.empty() ? std::string()
                                 : fmt::format(" (floor {:.0f}%: {})", c.floor * 100,
                                               core::markdown_cell(c.floor_rule)))
        << " | " << results::markdown_cell(c.memory) << " |\n";
  };
  const char* header = "| case | baseline | tonight | change | p | both looks | confirmation | "
                       "noise | MDE | nights | verdict | memory |\n"
                       "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n";
  bool any = false;
  for (const auto& c : result.cases) {
    if (!c.candidate)
      continue;
    if (!any)
      out << "## Candidates\n\n" << header;
    any = true;
    row(c);
  }
  if (!any)
    out << "No candidate tonight.\n";
  any = false;
  for (const auto& c : result.cases) {
    if (c.memory.verdict != MemoryVerdict::more)
      continue;
    if (!any)
      out << "\n## More memory\n\n| case | what moved | tolerance |\n|---|---|---:|\n";
    any = true;
    out << "| `" << core::markdown_code_cell(c.case_id) << "` | "
        << core::markdown_cell(c.memory.reason) << " | " << core::format_bytes(c.memory.tolerance)
        << " |\n";
  }
  out << "\n## Every case\n\n" << header;
  for (const auto& c : result.cases)
    row(c);
}

void write_gate_csv(const GateResult& result, std::ostream& out) {
  out << "case_id,verdict,reason,candidate,nights,baseline_us,tonight_us,ratio,p_value,noise,mde,"
         "blind,"
         "confirm_ratio,confirm_p,change_nights,change_ratio,second_look,second_us,look_ratio,look_"
         "p,memory_verdict,base_peak_bytes,peak_bytes,base_total_bytes,total_bytes,floor,floor_"
         "rule\n";
  auto bytes = [](std::int64_t v) { return v >= 0 ? std::to_string(v) : std::string(); };
  auto num = [](double v, const char* spec) {
    return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : std::string();
  };
  for (const auto& c : result.cases) {
    out << core::csv_field(c.case_id) << "," << core::name_of(c.verdict) << ","
        << core::csv_field(c.reason) << "," << (c.candidate ? "true" : "false") << "," << c.nights
        << "," << num(c.baseline * 1e6, "{:.4f}") << "," << num(c.tonight * 1e6, "{:.4f}") << ","
        << num(c.ratio, "{:.6f}") << "," << num(c.p_value, "{:.6g}") << ","
        << num(c.noise, "{:.6f}") << "," << num(c.mde, "{:.6f}") << ","
        << (c.blind ? "true" : "false") << "," << num(c.confirm_ratio, "{:.6f}") << ","
        << num(c.confirm_p, "{:.6g}") << "," << c.change_nights << ","
        << num(c.change_ratio, "{:.6f}") << "," << (c.second_look ? "true" : "false") << ","
        << num(c.second * 1e6, "{:.4f}") << "," << num(c.look_ratio, "{:.6f}") << ","
        << num(c.look_p, "{:.6g}") << "," << core::csv_field(core::name_of(c.memory.verdict)) << ","
        << bytes(c.memory.base_peak) << "," << bytes(c.memory.new_peak) << ","
        << bytes(c.memory.base_total) << "," << bytes(c.memory.new_total) << ","
        << num(c.floor, "{:.6g}") << "," << core::csv_field(c.floor_rule) << "\n";
  }
}

std::vector<std::pair<std::string, std::string>> slower_cases(const Json& report,
                                                              const std::string& where) {
  if (!report.is_object() || !report.contains("cases") || !report["cases"].is_array() ||
      !report.contains("rule")) {
    throw ResultsError(where + ": not a gate report (`opbench compare --history ... --format json` "
                               "writes one)");
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const Json& c : report["cases"]) {
    if (!c.is_object() || !c.contains("case_id") || !c["case_id"].is_string() ||
        c.value("verdict", Json()) != "slower")
      continue;
    const Json confirmed = c.value("confirm_ratio", Json());
    const Json judged = c.value("ratio", Json());
    const Json& ratio = confirmed.is_number() ? confirmed : judged;
    out.emplace_back(c["case_id"].get<std::string>(),
                     ratio.is_number() ? fmt::format("x{:.3f}", ratio.get<double>()) : "");
  }
  return out;
}

} // namespace opbench::gate

namespace opbench::gate {

void write_gate_junit(const GateResult& result, std::ostream& out) {
  using Outcome = core::JunitCase::Outcome;
  const GateOptions& o = result.options;
  core::JunitSuite suite;
  suite.name = "opbench gate";
  suite.properties = {{"window", std::to_string(o.window)},
                      {"min_history", std::to_string(o.min_history)},
                      {"candidate_alpha", fmt::format("{}", o.alpha)},
                      {"effect_floor", fmt::format("{}", o.effect_floor)},
                      {"confirmed", result.confirmed ? "yes" : "no"}};
  for (const auto& c : result.cases) {
    core::JunitCase t;
    t.classname = "opbench." + c.case_id.substr(0, c.case_id.find('/'));
    t.name = c.case_id;
    t.seconds = std::isfinite(c.tonight) ? c.tonight : -1;
    if (c.verdict == results::Verdict::slower) {
      t.outcome = Outcome::failed;
      t.type = "slower";
      t.message = fmt::format("slower: x{:.3f} against {} night(s) (p {:.3g}); {}",
                              c.judged_ratio(), c.nights, c.p_value, c.reason);
      t.detail = fmt::format("tonight {}, baseline {} (the nights' median, {} .. {})",
                             core::format_duration(c.tonight), core::format_duration(c.baseline),
                             core::format_duration(c.low), core::format_duration(c.high));
    } else if (!c.failed.empty()) {
      t.outcome = Outcome::failed;
      t.type = "failed tonight";
      t.message = c.failed;
    } else if (c.verdict == results::Verdict::unknown &&
               c.memory.verdict != results::MemoryVerdict::more) {
      t.outcome = Outcome::skipped;
      t.message = "unknown: " + c.reason;
    }
    results::add_memory_failure(t, c.memory, " than the last night that probed it");
    suite.cases.push_back(std::move(t));
  }
  core::write_junit(suite, out);
}

} // namespace opbench::gate
