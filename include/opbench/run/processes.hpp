#pragma once
// The processes that measure a run, as their supervisor sees them: every case's repetitions split
// over P fresh processes run one after another (results::split_repetitions; `run --processes P`,
// 1 included), each measuring its share of every case in an order of its own, and their parts
// merged into one result per case. A process that dies (a user's kernel segfaults, aborts, exits,
// is killed for memory) or holds one case past the per-case limit costs that case alone: the
// supervisor knows which case it held (measure/holding.hpp), records it as that case's failure, and
// starts a fresh process that goes on with the rest of the share (Resume), so every other case
// still gets all its repetitions. What starts a process is the caller's (child_runs.hpp's
// run_process, or a fake in the tests), so the split, the restarts and the merge need no LibTorch
// and no process. docs/custom-ops.md, "When your kernel crashes or hangs", tells a user the story.

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/measure/holding.hpp"
#include "opbench/results/case.hpp"
#include "opbench/results/result_set.hpp"
#include "opbench/run/run_loop.hpp"
#include "opbench/run/settings.hpp"

namespace opbench::run {

// Where a process started again after one that died goes on from: per case, the repetitions of
// this process's share already kept (0-based within the share), and the cases it leaves out
// (they crashed or hung in this share).
struct Resume {
  std::map<std::string, std::set<int>> done;
  std::set<std::string> left_out;
  bool empty() const { return done.empty() && left_out.empty(); }
};
Json to_json(const Resume& resume);
// Throws ResultsError naming `where` on a malformed record.
Resume resume_from_json(const Json& json, const std::string& where);

// What one measuring process is asked to do: process `index` (0-based) of `of`, `repetitions` of
// every case, the first at placement `first_placement`; the memory probe and the traces only
// where asked (the first process); after `attempt` earlier processes of this share died, what
// they left (`resume`).
struct ProcessTask {
  int index = 0;
  int of = 1;
  int repetitions = 0;
  int first_placement = 0;
  bool memory = false;
  bool trace = false;
  int attempt = 0;
  Resume resume;
  // What the processes before it found of each case (run_loop.hpp's Calibrations): its
  // repetitions start warm from it where they can.
  Calibrations calibration;
};

// What a measuring process tells as it goes (its journal, read while it runs).
struct ProcessEvents {
  // A kept repetition of a case it has not finished; `repetition` 0-based within its share.
  std::function<void(results::CaseResult, int repetition)> repetition;
  // A case it finished: every repetition of its share measured (or the one that failed).
  std::function<void(results::CaseResult)> finished;
};

// How a measuring process ended.
struct ProcessEnd {
  bool finished = false; // it ran to its end and wrote its result file
  std::string how;       // how it ended otherwise: "SIGSEGV", "exit 3", "it could not be started"
  // Its supervisor killed it: it held one case past the per-case limit (`limit` seconds).
  bool timed_out = false;
  double limit = 0;
  // What it held when it ended (measure/holding.hpp); none: it held no case (start-up, between
  // cases, or it finished).
  std::optional<measure::Held> held;
  Json summary = Json::object(); // its result file's summary, when finished
  std::string problem;           // anything else gone wrong (a result file it left unreadable)
};

struct ProcessCallbacks {
  // Runs one measuring process to its end, telling `events` what it measured as it goes.
  std::function<ProcessEnd(const ProcessTask&, const ProcessEvents&)> start;
  // A repetition a process kept, as soon as it is told (ProcessEvents::repetition), or a part of a
  // case told only whole (the journal keeps it should the run be killed); `process` 0-based.
  std::function<void(const results::CaseResult&, int process)> kept;
  // A case is over: its parts merged (or its failure, saying which process, phase and repetition).
  // A case the last process finishes is over at once; the others when the last process ends.
  std::function<void(results::CaseResult)> finish;
  // A line about the run ("process 2 of 3: ...", a case that crashed its process).
  std::function<void(const std::string&)> note;
  // Asked after each process: true stops the run there (a signal: interrupt.hpp); what the
  // processes so far kept has gone to `kept`, and no case is finished after it. Unset: never.
  std::function<bool()> stopped;
};

// The one-line account of a process ending while it held a case: "SIGSEGV in the timed blocks,
// repetition 3 of 6" or "held the timed blocks, repetition 3 of 6, past the 60 s limit
// (--case-timeout); killed"; `of`: the run's repetitions of a case.
std::string describe_failure(const ProcessEnd& end, int of);

// Runs the processes one after another, `shares[k]` repetitions each, and merges each case's
// parts: its repetition medians from every process pooled (results::combine_repetitions) and its
// repetitions off the run's usual memory bandwidth set aside on the readings of all processes.
// A process that died while it held a case makes that case an `error` (`timeout` when every
// failure was the limit's) naming the signal, phase, repetition and process, and how many of the
// processes that ran it it failed in; what its other processes measured stays in the record. The
// process is started again without that case, keeping what it had measured, and goes on with the
// rest of its share. A process that died holding no case is started again while it makes
// progress; a case no process measured is an error naming the processes' problems. Returns what
// the processes met (slow spells, memory readings, time measured again and spent warming up),
// summed; returns early when `on.stopped` says so.
SlowSpells measure_in_processes(const std::vector<results::Case>& cases,
                                const std::vector<int>& shares, const RunSettings& settings,
                                const ProcessCallbacks& on);

} // namespace opbench::run
