#pragma once
// The nightly gate as pure functions: tonight's value of every case (its estimate, one per night)
// against that case's own history (history::History; nights held out left out), in log space:
// judge() finds the candidates (a t test of a new value against the nights, past the effect
// floor, beyond every night of the window; the window cut at a level change that held),
// second_look() judges the candidates that asked for one on both of tonight's values, and
// confirm() / confirm_ab() turn candidates into verdicts only where a second measurement (against
// the history, or A/B against the previous build) shows the same move. Every case also gets its
// minimum detectable effect; a blind one is `unknown`. The rules, their formulas and the
// measurements behind their defaults are in docs/nightly.md ("The gate") and
// docs/nightly-log.md; GateOptions names each knob.

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "opbench/ab/paired.hpp"
#include "opbench/core/formats.hpp"
#include "opbench/core/json.hpp"
#include "opbench/results/memory_change.hpp"
#include "opbench/results/verdict.hpp"
#include "opbench/stats/change_points.hpp"

namespace opbench::gate {

struct GateOptions {
  std::size_t window = 20;     // nights of history used at most (the newest)
  std::size_t min_history = 5; // fewer nights: verdict unknown
  double alpha = 0.002;        // per-case level of a candidate
  double look_alpha =
      0.05; // tonight's p under this (or under alpha): a second look before deciding
  double confirm_fdr = 0.05;  // Benjamini-Hochberg level over the candidates' confirmations
  double effect_floor = 0.03; // |ratio - 1| that counts at least
  double noise_floor = 0.005; // the robust sd of log values is at least this
  double power = 0.8;         // for the MDE
  double blind_above = 0.10;  // MDE past this: blind
  // A CUDA case whose device's SM clock tonight lay further than this from its nights' usual
  // clock (history version 7 on) ran on a device that moved (GateInput::device_moved).
  double clock_tolerance = 0.05;
  std::size_t change_segment =
      stats::ChangePointOptions{}.min_segment; // nights a side of a change, at least
  double change_alpha =
      stats::ChangePointOptions{}.alpha; // level of a change point (Bonferroni over the splits)
  // The p under which a case asks for a second look: look_alpha, and never under the candidate
  // level.
  double look_level() const { return look_alpha > alpha ? look_alpha : alpha; }
};

// One case: its history (night values, oldest first) and tonight's value [s].
struct GateInput {
  std::string case_id;
  std::vector<double> history;
  std::optional<double> tonight; // absent: the case did not run ok tonight
  // The case failed tonight (status error, timeout, compiler failed): its status and message,
  // which the JUnit view holds as a failure; "" when it ran ok or was skipped.
  std::string failed;
  // Tonight's repetitions disagreed past results::k_unstable_ratio (Estimate::unstable): its value
  // says nothing the gate could act on, so the case is unknown.
  bool unstable = false;
  // Why the history is shorter than the nights recorded, said with a verdict of too little history
  // (e.g. "12 night(s) called boxed left out": only nights measured the way tonight was are
  // history).
  std::string left_out;
  // This case's effect floor from a threshold rule (compare --thresholds); absent: the options'.
  std::optional<double> effect_floor;
  std::string floor_rule; // the rule (results::describe); "" without one
  // The newest accepted change of the level among the nights (history::on_accepted_level moved
  // the nights before it onto it): "DATE: REASON"; "" when none.
  std::string accepted;
  // Tonight's memory against the newest night of the history that probed it on the same LibTorch
  // and input seed (results::judge_memory; judge_night makes it): exact, no window.
  results::MemoryChange memory;
  // Nights of the case held out of `history` (history::Exclusion: the gate judged them slower, or
  // a user excluded them), said beside the verdict.
  std::size_t held_out = 0;
  // CUDA cases: how tonight's device differed from its nights' (a clock off their usual by more
  // than clock_tolerance, repetitions kept on a slowed device; judge_night makes it); "" when it
  // did not, or nothing was read.
  std::string device_moved;
};

struct GateCase {
  std::string case_id;
  std::size_t nights = 0; // history used (the nights since the last change point, when one held)
  std::size_t change_nights = 0; // the window's last change point was this many nights ago; 0: none
  double change_ratio = 0;       // its level after / before; NaN without one
  double baseline = 0;           // [s] median of the nights; NaN without history
  double noise = 0;              // robust sd of log night values (floored)
  double low = 0; // [s] the fastest and slowest night of the window; NaN without history
  double high = 0;
  double tonight = 0; // [s]; NaN when absent
  double ratio = 0;   // tonight / baseline
  double t = 0;
  double p_value = 0; // NaN when not tested
  double mde = 0;     // relative; NaN when unknown
  bool blind = false; // mde > blind_above
  bool candidate = false;
  // Second look: `second_look` when tonight's p is under look_alpha; after second_look(), the
  // second value [s], the geometric mean of both over the baseline and its p (NaN without one).
  bool second_look = false;
  double second = 0;
  double look_ratio = 0;
  double look_p = 0;
  // The move the candidate was judged on: both looks' after a second look, else tonight's.
  double judged_ratio() const { return look_ratio > 0 ? look_ratio : ratio; }
  // After confirm(): the second measurement's ratio and p-value (NaN when not re-measured).
  double confirm_ratio = 0;
  double confirm_p = 0;
  // Tonight called another way, or measured on another host allocator, than nights of its
  // history, which were left out (GateInput::left_out), and too little history is left: `unknown`
  // for that reason.
  bool called_otherwise = false;
  // "slower" or "faster" (a confirmed candidate), "same" (tested, no candidate, and the case can
  // see a change past its floor) or "unknown": too little history, unstable, blind (its MDE is
  // past blind_above: `same` would claim more than it can see), or a candidate nothing confirmed.
  results::Verdict verdict = results::Verdict::unknown;
  std::string reason;           // why: candidate, confirmed, not confirmed, too little history...
  std::size_t held_out = 0;     // GateInput::held_out
  std::string failed;           // GateInput::failed
  results::MemoryChange memory; // GateInput::memory
  std::string accepted;         // GateInput::accepted
  double floor = 0;             // the effect floor it was judged with (GateInput::effect_floor)
  std::string floor_rule;       // GateInput::floor_rule
  std::string device_moved;     // GateInput::device_moved
};

struct GateResult {
  GateOptions options;
  std::vector<GateCase> cases;
  std::size_t candidates() const;
  // The verdicts of `cases`, counted (the one counting of compare, the gate and ab).
  results::VerdictCounts counts() const { return results::count_verdicts(cases); }
  std::size_t count(results::Verdict verdict) const { return counts().of(verdict); }
  std::size_t blind() const;
  std::size_t second_looks() const;     // cases that asked for a second look
  std::size_t called_otherwise() const; // unknown: called another way than their history
  bool regressed() const { return counts().regressed(); }
  std::size_t count(results::MemoryVerdict memory) const { return counts().of(memory); }
  bool more_memory() const { return counts().more_memory_seen(); }
  bool looked = false;    // second_look() ran
  bool confirmed = false; // confirm() or confirm_ab() ran
  bool ab = false;        // confirm_ab() ran: the confirmation was against the previous build
  // What the reader must know beside the verdicts, one sentence each (judge_night: nights of the
  // history left out because they were measured on another host allocator).
  std::vector<std::string> notes;
};

// The gate's noise of a set of values (night values, or one value per process): the larger of
// 1.4826 MAD and (q90 - q10) / 2.563 of their logs, two estimates of the sd that agree on normal
// data (the second also sees a minority mode); non-positive values are left out, NaN when none is
// left.
double robust_log_sd(const std::vector<double>& values);

// Judges every input against its own history: candidates, with verdict "unknown" and reason
// "candidate: slower x1.234, not confirmed" until confirm() decides them; a blind case is
// "unknown", saying the change it could have seen.
GateResult judge(const std::vector<GateInput>& inputs, const GateOptions& options);

// The second look: `values[i]` is the second value of the case `ids[i]` tonight (the same
// measurement again, fresh processes, same settings). Every case that asked for one (second_look)
// is judged again on the geometric mean of its two values, with half a night's variance, beyond
// the window and past the floor; it becomes a candidate or stops being one. A case that asked and
// has no second value keeps its first judgement (reason says so). Every case's MDE becomes the
// two-look rule's.
void second_look(GateResult& result, const std::vector<std::string>& ids,
                 const std::vector<double>& values);

// Decides the candidates with a second measurement of them: `again[i]` is the re-measured
// value of the case with id `ids[i]`. Confirmed candidates get verdict slower / faster; the
// others "same", reason "not confirmed". Candidates with no second value stay "unknown".
void confirm(GateResult& result, const std::vector<std::string>& ids,
             const std::vector<double>& again);

// Decides the candidates A/B, like Chromeperf's Pinpoint: `paired` holds what `opbench ab` measured
// of the candidates, tonight's build (new) against the previous one (base), a fresh process of
// each side per round, interleaved (ab/paired.hpp: one time per side and round). The candidates'
// rounds are judged again here with ab's paired rule at threshold 0 and `confirm_fdr` (is there a
// change at all, the false-discovery rate held over the candidates); a candidate is confirmed when
// that says slower or faster in its own direction and the rounds' ratio is past its floor, and is
// `same` ("not confirmed") when it does not. `confirm_ratio` is the rounds' ratio (tonight /
// previous build), `confirm_p` the test's p. With fewer than 3 paired rounds, or none, the
// candidate stays "unknown".
void confirm_ab(GateResult& result, const std::vector<ab::PairedCase>& paired);

// The device, not the code: a case called slower or faster (or a candidate) while its device
// ran at another clock than its nights (GateCase::device_moved) is `unknown`, saying so, unless
// an A/B confirmation measured it against the previous build on the same device (confirm_ab),
// which the device's state moves alike on both sides.
void hold_device_moves(GateResult& result);

// The gate's output formats (md, json, csv, junit; compare --history --format): core::write_as
// picks one.
const std::vector<core::Format<GateResult>>& gate_formats();

Json to_json(const GateResult& result);
// The cases a gate report (to_json) judged `slower`, with the move it confirmed ("x1.234"): what
// `history add --gate` holds out of the baselines. Throws ResultsError naming `where` when
// `report` is no gate report.
std::vector<std::pair<std::string, std::string>> slower_cases(const Json& report,
                                                              const std::string& where);
void write_gate_markdown(const GateResult& result, std::ostream& out);
void write_gate_csv(const GateResult& result, std::ostream& out);
// JUnit XML (core/junit.hpp): `slower`, `more memory` and a case that failed tonight fail, an
// `unknown` time is skipped, the others pass.
void write_gate_junit(const GateResult& result, std::ostream& out);

} // namespace opbench::gate
