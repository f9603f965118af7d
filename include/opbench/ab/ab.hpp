#pragma once
// `opbench ab`: two sides measured in the same hour, interleaved, and judged pair by pair
// (docs/ab.md). A side is an opbench binary (its build of opbench and its LibTorch) with the
// operator libraries its processes load; the two sides may be two binaries (--base-bin,
// --new-bin) or one binary with two builds of a library (--base-library, --new-library: the same
// operator names, so each process loads one side's only).
//
// The schedule (randomized multiple interleaved trials, Abedi and Brecht, ICPE 2017): up to R
// rounds; in each, the cases still undecided (AbSettings::stop_after) are cut into blocks, and
// every block is measured by a fresh `run --from BLOCK --repetitions K --processes 1` of each side,
// the sides' order drawn per round and block from the seed, or both at once on disjoint CPUs
// (Schedule::duet); both sides run the same cases with the same inputs (the plan's seeds). A side's
// run is a supervised run of its own, so a case that crashes or hangs there is an error or timeout
// of that case for that side only, named in the result; a side run that ends without a result costs
// that block of that round for that side. Every side run's result file and log is kept in the work
// directory, and the A/B file is written again after every round: an interrupted `ab` keeps what
// both sides measured.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "opbench/ab/paired.hpp"
#include "opbench/core/formats.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/names.hpp"
#include "opbench/results/case.hpp"
#include "opbench/results/result_set.hpp"
#include "opbench/results/verdict.hpp"
#include "opbench/run/settings.hpp"

namespace opbench::ab {

// How a block's two side runs share the machine: one after the other in a drawn order
// (interleaved), or both at once, each on its own half of this process's CPUs, the halves swapped
// by a draw per round and block (duet: Bulej et al., ICPE 2020; a slow spell of the machine then
// falls on both sides of a pair). docs/ab.md has which is the default and why.
enum class Schedule { interleaved, duet };

// One side: the opbench that measures it and the operator libraries its processes load.
struct Side {
  std::string binary; // absolute path
  std::vector<std::string> libraries;
  std::string version; // its `--version` line, filled by check_side
};

struct AbSettings {
  Side base;
  Side new_side;
  // At most; cases found the same stop before (stop_after, precision). Why 20: docs/ab-log.md.
  int rounds = 20;
  // Adaptive rounds: from this many pairs on, a case found the same is measured no more, and the
  // rounds go to the others (a slower or faster one is measured in every round); 0: every case
  // every round. Its verdict is judged again with all the others' after every round.
  int stop_after = 5;
  // A case found the same stops early only once the smallest change it could have seen
  // (PairedCase::seeable, relative) is at most this; 0: as soon as it is found the same (its
  // interval within the threshold). The rounds' cost grows about as 1 / precision^2. Why 0.03:
  // docs/ab-log.md.
  double precision = 0.03;
  // Seconds: no round starts that would end past this, judged by the last round's time per case
  // measured; 0: no budget.
  double budget = 0;
  // Cases per block (a side run each): smaller blocks put a case's two sides closer in time, at
  // one side run's start (two processes, a process warmup) per block and side. 0: one block of
  // every case. 96 since 2026-11-29 (24 before): half the wall time on a quarter of the default
  // suite, no less precise (docs/ab-log.md).
  std::size_t block_cases = 96;
  // Repetitions of every case in each side run (each at another placement in that process); the
  // round's time is the fastest one's median, so a slow spell must hit them all to move it.
  int side_repetitions = 2;
  Schedule schedule = Schedule::interleaved;
  std::uint64_t seed = 0;     // the sides' order (or CPUs) in each round and block
  run::RunSettings measuring; // how each side run measures (run::measuring_args, retries...)
  bool memory = true;         // probe the memory in round 1 (memory verdict)
  std::string work_dir;       // the side runs' plans, results and logs (kept)
  PairedOptions verdict;
};

// One side run: which round, block and side, its files and how it ended.
struct SideRun {
  int round = 0;      // 1-based
  int block = 0;      // 1-based
  std::string side;   // "base" or "new"
  std::string result; // its result file ("" when it left none)
  std::string log;
  std::string how; // "" when it finished with a result; else how it ended ("SIGSEGV", "exit 2")
  double seconds = 0;
  std::vector<int> cpus; // the CPUs it ran on (duet); empty: those of ab's own process
};

// Per case: the paired times and verdict, and what each side said where it measured nothing.
struct AbCase {
  results::Case c; // as planned
  PairedCase paired;
  std::string base_error; // the last error or timeout of the base side (status: message)
  std::string new_error;
};

struct AbResult {
  AbSettings settings;
  std::string command_line;
  Json base_context = Json::object(); // the first side run's context of each side
  Json new_context = Json::object();
  std::vector<AbCase> cases; // in plan order
  std::vector<SideRun> runs;
  int rounds_done = 0;
  std::string ended; // why it ended before --rounds rounds ("" when it did not)
  SuiteRatio suite;
  bool interrupted = false;
  std::vector<std::string> notes;

  results::VerdictCounts counts() const;
};

// What ab tells as it goes: a line of progress after each side run (round, block, cases decided,
// elapsed seconds), and a note.
struct AbObserver {
  std::function<void(const AbResult&, const SideRun&, double elapsed)> side_done;
  // After each round: how many cases are decided, how many it measured, seconds since the start.
  std::function<void(const AbResult&, std::size_t decided, std::size_t measured, double elapsed)>
      round_done;
  std::function<void(const std::string&)> note;
};

// The two halves of `cpus` a duet's sides run on: whole cores each (CPUs that `core_of` puts on one
// physical core, hardware threads of it, stay in one half, so the sides never share a core's
// pipelines), the first half of the cores (in the order of their first CPU) to the first half;
// on a single core its CPUs are split. Each half ascending.
std::array<std::vector<int>, 2> split_cpus(const std::vector<int>& cpus,
                                           const std::function<std::string(int)>& core_of);

// Asks `side.binary --version` whether it is an opbench whose result files this one reads, and
// fills side.version; throws UsageError in one line naming the flag (`what`) otherwise.
void check_side(Side& side, const std::string& what, const std::string& work_dir);

// Runs the rounds over `cases` and judges them; the A/B file goes to `output` after every round
// (to_json). Throws run::Interrupted after writing what was measured when a signal stopped it.
AbResult run_ab(const std::vector<results::Case>& cases, const AbSettings& settings,
                const std::string& output, const std::string& command_line,
                const AbObserver& observer);

// The cases the next round measures (indices into result.cases): every case until it has
// settings.stop_after pairs, then those not found the same, or found the same but with a
// smallest seeable change past settings.precision (when set). A `slower` or `faster` case is
// measured in every round: the verdict a user acts on stands on all the rounds, not on the
// first few (why: docs/ab-log.md).
std::vector<std::size_t> still_open(const AbResult& result, const AbSettings& settings);

// Judges `result.cases` again from their paired times (after each round), the suite ratio too.
void judge(AbResult& result);

// The A/B file: {"kind": "opbench-ab", "schema_version", settings, sides, cases (each with its
// case, both sides' times per round, verdict, interval, memory), runs, suite}.
Json to_json(const AbResult& result);

// The A/B file read back (`opbench export --input AB.json`); its verdicts judged again from its
// times with its settings. Throws ResultsError naming `where` and the field on a malformed file.
AbResult ab_from_json(const Json& json, const std::string& where);

// The A/B file at `path` read back (ab_from_json); throws ResultsError naming the file when it
// cannot be read, is not JSON or is no A/B file.
AbResult load_ab(const std::string& path);

// One side ("base" or "new") of the A/B file read from `where` as the result set of a run of its
// own (`export --input AB.json --side S`): per case, one repetition per round that side measured
// it in, its time the one the verdict pairs (the fastest of that side run's repetition medians),
// its samples and calls pooled from that side's run files; a case that side never measured is an
// error with the side's reason. The context is the side's, with "ab_side": "base side of AB.json,
// 20 rounds".
// Rounds measured both sides in the same hour, so two sides of one A/B file differ by what
// differs between them, not by the hour (docs/ab.md). Throws UsageError for another side, and
// ResultsError naming a side run's result file that is not there or cannot be read.
results::ResultSet side_results(const AbResult& ab, const std::string& side,
                                const std::string& where);

// Output formats of `opbench ab --format` and of `export` of an A/B file: md, json, csv, junit
// (`slower` fails, `unknown` is skipped), html (one page, each case's rounds and interval drawn);
// core::write_as picks one.
const std::vector<core::Format<AbResult>>& ab_formats();
void write_markdown(const AbResult& result, std::ostream& out);
void write_html(const AbResult& result, std::ostream& out);
void write_csv(const AbResult& result, std::ostream& out);
void write_junit(const AbResult& result, std::ostream& out);

} // namespace opbench::ab

namespace opbench::core {
template <> struct NameTable<ab::Schedule> {
  static constexpr std::pair<ab::Schedule, std::string_view> k_names[] = {
      {ab::Schedule::interleaved, "interleaved"}, {ab::Schedule::duet, "duet"}};
};
} // namespace opbench::core
