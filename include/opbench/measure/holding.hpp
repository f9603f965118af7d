#pragma once
// What a measuring process holds: the case, its repetition and the phase it is in, written to a
// file its supervising parent names (`run --hold-file`, run/child_runs.hpp) before the process
// touches that case or enters that phase. When the process dies (a user's kernel segfaults,
// aborts, calls exit; the kernel's OOM killer) or hangs, the parent reads the file and knows which
// case was to blame, in what phase and repetition, and goes on without it; no other case is
// blamed (docs/custom-ops.md, "When your kernel crashes or hangs").
//
// The file holds one record, rewritten in place with a single pwrite() (a process killed between
// two records leaves the last whole one): a JSON object on one line, then a newline; anything
// after that newline is a longer earlier record's tail. Case ids go through JSON's escapes, so an
// id holding a newline or a control character stays one record. Nothing here needs LibTorch;
// with no file open every call is a no-op.

#include <cstdint>
#include <optional>
#include <string>

#include "opbench/core/names.hpp"

namespace opbench::measure {

// Where a process is in a case. `process_warmup`: the process's first, dropped repetition
// (run --process-warmup); `inputs`: making the workload (inputs, a stage's trace); `compile`: a
// stage's compiler (its own, longer limit); `check`: an implementation held against its baseline;
// `record`: the untimed call whose ATen calls are recorded; `warmup`: warmup and block-size
// calibration; `timed`: the timed blocks; `memory_probe`, `trace`: after the timing.
enum class Phase {
  process_warmup,
  inputs,
  compile,
  check,
  record,
  warmup,
  timed,
  memory_probe,
  trace
};

// What the hold file said last.
struct Held {
  std::string case_id;
  int repetition = 0; // 0-based, among the whole run's repetitions of the case (its placement)
  Phase phase = Phase::inputs;
  std::uint64_t serial = 0; // grows with every record: a changed record is a new one
  bool released = false;    // the process holds no case (release_hold)
};

// The words a message uses for a phase ("the timed blocks").
std::string describe(Phase phase);

// Opens (creates, truncates) the hold file for this process's records; throws Error naming the
// file and the OS's reason.
void open_hold_file(const std::string& path);

// This process now holds repetition `repetition` (0-based, the run's) of `case_id`, in `phase`.
void hold(const std::string& case_id, int repetition, Phase phase);

// The held case enters `phase` (nothing when no case is held).
void hold_phase(Phase phase);

// This process holds no case any more (between repetitions, and before it ends).
void release_hold();

// The last whole record of the hold file at `path` (`released` when it holds no case); none when
// the file is missing, empty or holds no whole record yet.
std::optional<Held> read_hold_record(const std::string& path);

// The case the process at `path` held last; none when it held none (or released it).
std::optional<Held> read_hold_file(const std::string& path);

} // namespace opbench::measure

namespace opbench::core {

template <> struct NameTable<measure::Phase> {
  static constexpr std::pair<measure::Phase, std::string_view> k_names[] = {
      {measure::Phase::process_warmup, "process warmup"},
      {measure::Phase::inputs, "inputs"},
      {measure::Phase::compile, "compile"},
      {measure::Phase::check, "check"},
      {measure::Phase::record, "record"},
      {measure::Phase::warmup, "warmup"},
      {measure::Phase::timed, "timed"},
      {measure::Phase::memory_probe, "memory probe"},
      {measure::Phase::trace, "trace"}};
};

} // namespace opbench::core
