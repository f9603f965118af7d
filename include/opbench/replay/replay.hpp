#pragma once
// `opbench replay`: the sizes a model meets, in the order it meets them, run through a stage
// (eager, script-dynamic, inductor-dynamic), each call timed once, then set against the stage's
// steady state at each size (docs/replay.md). This is LongTail-Bench's S4/S5 question on the
// sizes that happen rather than on a grid: what a dynamic stage's first calls at new sizes cost
// (profiling runs, recompiles after a guard fails, sizes a package refuses) over a whole trace.
//
// Each stage replays in a fresh process of its own (the same binary, `replay --part`), so one
// stage's warm state never shortens another's first calls, and a stage that crashes is that
// stage's error, named, while the others go on.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/plan/select.hpp"
#include "opbench/results/case.hpp"

namespace opbench::replay {

// One line of a sizes file: `NAME=SIZE` pairs separated by spaces (`boxes1=1000 boxes2=200`),
// each an --axis of one value, naming a sample's size or an operator's named dimension.
struct SizeSet {
  int line = 0;                  // its line in the file (1-based)
  std::vector<std::string> axes; // "NAME=SIZE" each
  std::string text() const;      // the pairs joined by spaces
};

// The size sets of `path`, one a line; blank lines and lines starting with `#` are skipped.
// Throws ConfigError "FILE:LINE: expected NAME=SIZE pairs ..., got '...'" for a line that is not
// such pairs (a size of several values included), and for a file with none.
std::vector<SizeSet> read_sizes(const std::string& path);

// One timed call of the replay: the stage on one planned case of one size set.
// ok: timed; refused: a size the stage does not take (not called); differs: timed, its outputs
// not eager's; skipped: its sample's stage cannot run it faithfully (measure::SkipCase, not
// called); error: the call, or making its sample's stage, failed.
enum class CallStatus { ok, refused, differs, skipped, error };
struct ReplayCall {
  int line = 0;        // the size set's line
  std::string case_id; // the case (its sizes) called
  CallStatus status = CallStatus::ok;
  std::string message;           // why refused, how it differs from eager, what failed
  std::optional<double> seconds; // the call [s]; none when not made (refused)
  bool first_at_size = false;    // the first call of the replay at this case
  // script-dynamic: the optimized plans its executor held after the call, and how many the call
  // made (stages/size_free.hpp: a plan past the first is a recompile after a guard failed).
  std::optional<int> plans;
  int compiled = 0;
  std::optional<double> steady; // the stage's steady time at this case [s] (replay_here)
};

struct StageReplay {
  results::Stage stage = results::Stage::eager;
  bool ok = true;        // false: the stage could not be made, or its process failed
  bool skipped = false;  // (ok false) it cannot run this selection faithfully (SkipCase)
  std::string message;   // why not, in one line
  std::string runner;    // what ran the calls (stages/size_free.hpp's runner; eager: "aten")
  std::string made_from; // the case id its trace or package was made at
  double made_in = 0;    // seconds to make the stage before the first call (untimed there)
  bool cached = false;   // its package came from the cache
  int steady_calls = 0;  // calls timed at each case for its steady time
  std::vector<ReplayCall> calls;
};

// A stage's replay in sums: its calls, those timed and their seconds; those with a steady time
// too (all of them unless the stage's process ended first), their seconds and the same calls at
// the steady time of their cases, the first calls at a case among them; and the counts.
struct StageTotals {
  int calls = 0, timed = 0, refused = 0, differ = 0, skipped = 0, failed = 0;
  double seconds = 0; // every timed call
  int steadied = 0;   // timed calls with a steady time
  double steadied_seconds = 0, steady = 0;
  int first_calls = 0; // steadied calls that were the first at their case
  double first_seconds = 0, first_steady = 0;
  int compiles = 0, recompiles = 0; // script-dynamic: plans made, and past the first
  bool counts_plans = false;
};
StageTotals totals_of(const StageReplay& stage);

struct Replay {
  std::string sizes_file;
  std::vector<SizeSet> sizes;
  std::vector<StageReplay> stages;
  Json context;        // machine::collect_context's
  int interrupted = 0; // the signal (SIGINT, SIGTERM, SIGHUP) that stopped it; 0 when none
};

Json to_json(const ReplayCall& call);
ReplayCall call_from_json(const Json& json); // what to_json wrote; throws on anything else
Json to_json(const StageReplay& stage);
StageReplay stage_from_json(const Json& json); // what to_json wrote; throws ConfigError otherwise
Json to_json(const Replay& replay);

// The planned cases of each size set (in the sizes' order) at one stage.
using Planned = std::vector<std::vector<results::Case>>;

// The planned cases of each size set at each of `stages` (one Planned a stage, in their order):
// `selection` with the set's sizes as its axes, every stage planned by one plan::select a set.
// Throws UsageError "FILE:LINE: ..." for a set that plans no case (at some stage) or does not
// bind.
std::vector<Planned> plan_sizes(const plan::Selection& selection, const std::string& sizes_file,
                                const std::vector<SizeSet>& sizes,
                                const std::vector<results::Stage>& stages);

// Replays `planned` (plan_sizes's, in order) in this process: the stage made first (dynamic
// stages: from the first case of each sample, stages/size_free.hpp; its sizes' refusals probed
// before the first call), then one timed call a case of each size set, each held to eager
// after it (untimed; eager's own calls are not), then each case's steady time: the median of
// `steady_calls` calls after two untimed ones. Never throws for a failure in a case or stage:
// it becomes the call's or the stage's status. With `journal` (a path), each call is written
// there as it starts and as it ends, one JSON a line (after the stage as made: {"made": ...}),
// so that a process that ends inside a call leaves what it measured before (kept_calls).
StageReplay replay_here(const std::vector<std::vector<results::Case>>& planned,
                        const std::vector<SizeSet>& sizes, results::Stage stage, int steady_calls,
                        const std::string& journal = "");

// A whole torch.export program, which a config from `extract --exported` names (its `exported`
// record): at stage inductor-dynamic a replay calls the program itself, compiled once by
// AOTInductor with its symbolic dimensions (stages/size_free.hpp's program_stage), one call a size
// set, where eager calls its operators one by one.
struct Program {
  std::string path;                             // the .pt2 file
  Json inputs;                                  // [{name, shape: sizes and dimension names, dtype}]
  std::map<std::string, std::int64_t> examples; // each dimension's size where a set names none
};
// The program of the config file `config`; none for a config of anything else (or one extracted
// before its inputs were recorded, 2026-11-29). Throws ConfigError for a file that is not JSON.
std::optional<Program> program_of(const std::string& config);

// replay_here for a Program at inductor-dynamic: one call a size set, on inputs of the program's
// dtypes at the set's sizes, made from `seed` on `device` with `threads` intra-op threads (the
// same values for every call at one set). The package's outputs are not held to eager (there is
// no eager of an exported program in LibTorch), and no call says it was.
StageReplay replay_program_here(const Program& program, const std::vector<SizeSet>& sizes,
                                const std::string& device, int threads, std::uint64_t seed,
                                int steady_calls, const std::string& journal = "");

// The stage process's side of replay(): replay_here with its journal at `part`.journal and its
// hold records (measure/holding.hpp) at `part`.hold, each call held as the case at its line's
// repetition, then the StageReplay written to `part`.
// With `program` and stage inductor-dynamic, replay_program_here instead (on the planned cases'
// device, threads and seed).
void replay_part(const std::vector<std::vector<results::Case>>& planned,
                 const std::vector<SizeSet>& sizes, results::Stage stage, int steady_calls,
                 const std::string& part, const std::optional<Program>& program = std::nullopt);

// What a stage's process that ended without its part left in its journal: the stage as made,
// the calls it ended, and the call it was in (an error saying `how` it ended), if any; then
// `ok` false and the message saying the rest was not made.
StageReplay kept_calls(results::Stage stage, const std::string& journal, const std::string& how);

// The whole replay: each of `stages` in a fresh process made by `child` (the program and its
// arguments for one stage running replay_part into `part`), one after another, killed when it
// holds one call past `call_limit` seconds (a stage's compile: run::k_compile_timeout). A process
// that ends without its part makes the stage an error saying how it ended, with the calls its
// journal kept (a stage's state after a crash cannot be rebuilt, so its later calls are not
// made). A signal (run/interrupt.hpp) is passed on to the stage's process, which keeps its
// journal; no other stage starts, and Replay::interrupted says which signal it was (the caller
// writes what was kept, then dies of it: run::die_of). Each stage is added to `out` (its sizes,
// file and context the caller's) as it ends, and `done` then gets the replay so far.
struct ChildCommand {
  std::string program;
  std::vector<std::string> args; // args[0] the program's name
};
void replay(Replay& out, const std::vector<results::Stage>& stages,
            const std::function<ChildCommand(results::Stage, const std::string& part)>& child,
            const std::function<void(const Replay&)>& done, double call_limit);

// One line per stage: its calls, their time against the steady state, the first calls', the
// plans, refusals and differences.
std::string summary_line(const StageReplay& stage);
// Markdown: the summary table, then every call of each stage.
std::string markdown(const Replay& replay);

} // namespace opbench::replay
