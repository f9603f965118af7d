#pragma once
// One `opbench run` over planned cases, from start to its result file: the context, the journal
// (every finished case and every kept repetition, as soon as it is in), the measuring loop in this
// process or the repetitions split over fresh processes (--processes, --isolate), % of peak, and
// the run's summary. The CLI plans the cases and prints; this runs (docs/architecture.md).

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/results/case.hpp"
#include "opbench/results/result_set.hpp"
#include "opbench/run/settings.hpp"

namespace opbench::run {

// Where a run reports what it does as it goes (the CLI prints to the console).
struct RunObserver {
  // The journal is open: `cases` will be measured, finished ones go to `journal` as they finish.
  std::function<void(std::size_t cases, const std::string& journal)> started;
  // A case is over (`finished` of `total`, `elapsed` seconds since the run began).
  std::function<void(const results::CaseResult&, std::size_t finished, std::size_t total,
                     double elapsed)>
      case_done;
  // A line about the run (a process started or died, the memory canary's level, where the time
  // went).
  std::function<void(const std::string&)> note;
};

// How a run ended.
struct RunOutcome {
  std::size_t cases = 0;
  results::StatusCounts counts; // how the cases ended (a failure of any kind fails the run)
  std::string output;           // the result file written
  Json summary;                 // the result file's summary
};

class Session {
public:
  // Checks the settings (UsageError) and sets this process up for measuring: the host allocator
  // (machine/host_allocator.hpp), before anything is planned, so every allocation measured follows
  // it.
  explicit Session(RunSettings settings);

  // Measures `cases` (planned, none empty) and writes the result file `output` (its journal
  // beside it, as cases finish); the command line is recorded in the context. A case that fails is
  // recorded as such and the others go on; throws ResultsError when the output cannot be written
  // (checked before anything is measured), and Interrupted when a signal stopped a run with
  // measuring children (interrupt.hpp; what they measured is in the journal).
  RunOutcome run(const std::vector<results::Case>& cases, const std::string& output,
                 const std::string& command_line, const RunObserver& observer);

  // The operator libraries loaded while the cases were planned (absolute paths): the run's
  // measuring processes load them too.
  void use_libraries(std::vector<std::string> paths) { m_settings.libraries = std::move(paths); }

  const RunSettings& settings() const { return m_settings; }

private:
  RunSettings m_settings;
  std::string m_allocator; // the host allocator's description (the context's host_allocator)
};

// Where --trace puts the trace of `case_id` in `dir`: a file name made of its readable
// characters, with its stable hash so that two ids never share a file.
std::string trace_file(const std::string& dir, const std::string& case_id);

} // namespace opbench::run
