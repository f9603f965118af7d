#pragma once
// `run --processes P`: every case's repetitions split over P fresh processes run one after
// another (results::split_repetitions), each measuring its share of every case in an order of its
// own, and their parts merged into one result per case. What starts a process is the caller's
// (child_runs.hpp's run_process, or a fake in the tests), so the split and the merge need no
// LibTorch and no process.

#include <functional>
#include <string>
#include <vector>

#include "opbench/results/case.hpp"
#include "opbench/results/result_set.hpp"
#include "opbench/run/run_loop.hpp"
#include "opbench/run/settings.hpp"

namespace opbench::run {

// What one process of `run --processes` measured: its results (its result file, else what its
// journal kept when it was killed), and `problem` when it did not finish ("" when it did).
struct ProcessPart {
  results::ResultSet results;
  std::string problem;
};

// What one measuring process is asked to do: process `index` (0-based) of `of`, `repetitions` of
// every case, the first at placement `first_placement`; the memory probe and the traces only
// where asked (the first process).
struct ProcessTask {
  int index = 0;
  int of = 1;
  int repetitions = 0;
  int first_placement = 0;
  bool memory = false;
  bool trace = false;
};

struct ProcessCallbacks {
  // Runs one measuring process to its end.
  std::function<ProcessPart(const ProcessTask&)> start;
  // A repetition a process kept, as soon as that process ended (the journal keeps it should the
  // run be killed); `process` 0-based.
  std::function<void(const results::CaseResult&, int process)> kept;
  // A case is over: its parts merged (or the part that failed or was skipped, saying which
  // process).
  std::function<void(results::CaseResult)> finish;
  // A line about the run ("process 2 of 3: ...", a process that died).
  std::function<void(const std::string&)> note;
  // Asked after each process: true stops the run there (a signal: interrupt.hpp); what the
  // processes so far kept has gone to `kept`, and no case is finished. Unset: never.
  std::function<bool()> stopped;
};

// Runs the processes one after another, `shares[k]` repetitions each, and merges each case's
// parts: its repetition medians from every process pooled (results::combine_repetitions) and its
// repetitions off the run's usual memory bandwidth set aside on the readings of all processes. A
// process that died costs the repetitions it had not finished, not the others': a case keeps what
// the other processes measured, and its message says how many of how many it has and why; a case
// no process measured is an error naming the processes' problems. Returns what the processes met
// (slow spells, memory readings, time measured again and spent warming up), summed; returns
// early, finishing no case, when `on.stopped` says so.
SlowSpells measure_in_processes(const std::vector<results::Case>& cases,
                                const std::vector<int>& shares, const RunSettings& settings,
                                const ProcessCallbacks& on);

} // namespace opbench::run
