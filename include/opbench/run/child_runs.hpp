#pragma once
// Fresh `opbench run` processes that measure part of a run (`run --isolate`: one repetition of
// one case each; `run --processes P`, 1 included: a share of every case's repetitions each, one
// process after another), watched while they run and read back. What changes between processes
// (address-space layout, where the allocator's heap and the thread pools land, huge pages or not)
// is then sampled by the run instead of fixed once for all its repetitions; and a user's kernel
// that crashes or hangs takes down a process the run can replace, never the run.
//
// The supervisor: each child writes what it holds to a hold file (measure/holding.hpp) before it
// touches a case; the parent polls the child (k_poll_ms), reads its journal as it grows (cases it
// finished, repetitions it kept), and kills the child's whole process group (its compilers too)
// when it holds one repetition of a case past the limit (RunSettings::case_timeout; a stage's
// compile: k_compile_timeout). When a child ends, whatever it left in its process group is killed
// too: nothing it started outlives it.

#include <string>
#include <vector>

#include "opbench/results/case.hpp"
#include "opbench/results/result_set.hpp"
#include "opbench/run/interrupt.hpp"
#include "opbench/run/processes.hpp"
#include "opbench/run/settings.hpp"

namespace opbench::run {

inline constexpr int k_poll_ms = 50; // how often a supervisor looks at its child

// Writes the cases as a result file that `run --from` reads back (every case "planned"), so the
// children run exactly these cases.
void write_plan(const std::vector<results::Case>& cases, const std::string& path);

// How a child ended: not started, or its wait status (waitpid's); whether its supervisor killed
// it for holding a case too long, and the limit it held it past.
struct ChildExit {
  bool started = false;
  int status = 0;
  bool timed_out = false;
  double limit = 0;
};
// "SIGSEGV", "exit 3" or "it could not be started".
std::string describe(const ChildExit& exit);

// The last line of the file `log` that a user's code or LibTorch wrote (opbench's own lines,
// "opbench: ..." and "[...", left out), cut at 300 characters: what a process that ended without
// a result said last. "" when there is none or the file cannot be read.
std::string last_words(const std::string& log);

// Runs `program` (a path) with `args` (args[0] its name) to its end, as the measuring children
// run: in a process group of its own, killed with that group when it ends or this process dies,
// a signal this process catches passed on to it (interrupt.hpp). Its stdout goes to the file
// `out` and its stderr to the file `log` ("": /dev/null and this process's stderr).
// With `limits`, it is watched as a measuring child is: killed with its group when it holds a
// case (measure/holding.hpp, in `limits.hold_file`, which the program opens) past `limit`
// seconds, or past `compile_limit` in a stage's compile; ChildExit::timed_out and ::limit say so.
struct HoldLimits {
  std::string hold_file; // "": no limit
  double limit = 0;      // [s] per repetition of a case held
  double compile_limit = 0;
};
ChildExit run_program(const std::string& program, const std::vector<std::string>& args,
                      const std::string& out, const std::string& log,
                      const HoldLimits& limits = {});

// A program run beside others (run_programs): as run_program's arguments, and the CPUs it may
// run on (sched_setaffinity before it starts, inherited by whatever it starts; empty: this
// process's own). A program that cannot be put on its CPUs exits 126 before it starts.
struct Program {
  std::string path;
  std::vector<std::string> args;
  std::string out;
  std::string log;
  std::vector<int> cpus;
};

// Runs `programs` (at most k_child_slots) at the same time, each as run_program runs one, and
// returns when all have ended: their exits, in order.
std::vector<ChildExit> run_programs(const std::vector<Program>& programs);

// The CPUs this process may run on (sched_getaffinity), ascending; empty when it cannot tell.
std::vector<int> allowed_cpus();

// "SIGSEGV" for 11: the signal's name as kill -l and the C headers spell it.
std::string signal_name(int signal);

// Runs repetition `repetition` (its placement index) of `c` in a fresh process and reads its
// result back; a process that ended without one gives an error result saying how it ended, in
// which phase (a signal by name), or a `timeout` result when it held the case past the limit.
results::CaseResult run_isolated(const results::Case& c, const std::string& plan_file,
                                 const RunSettings& options, bool memory, bool trace,
                                 int repetition, const std::string& scratch, int serial);

// Runs measuring process `task` over every case of the plan (leaving out what its Resume says),
// telling `events` what it finishes and keeps as it goes. Its progress lines go to this
// process's stderr, labelled "process K/P".
ProcessEnd run_process(const std::string& plan_file, const RunSettings& options,
                       const ProcessTask& task, const ProcessEvents& events,
                       const std::string& scratch);

} // namespace opbench::run
