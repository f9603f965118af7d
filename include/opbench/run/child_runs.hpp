#pragma once
// Fresh `opbench run` processes that measure part of a run (`run --isolate`: one repetition of
// one case each; `run --processes P`: a share of every case's repetitions each, one process after
// another), and reading back what they measured. What changes between processes (address-space
// layout, where the allocator's heap and the thread pools land, huge pages or not) is then
// sampled by the run instead of fixed once for all its repetitions.

#include <string>
#include <vector>

#include "opbench/results/case.hpp"
#include "opbench/results/result_set.hpp"
#include "opbench/run/processes.hpp"
#include "opbench/run/settings.hpp"

namespace opbench::run {

// Writes the cases as a result file that `run --from` reads back (every case "planned"), so the
// children run exactly these cases.
void write_plan(const std::vector<results::Case>& cases, const std::string& path);

// Runs repetition `repetition` (its placement index) of `c` in a fresh process and reads its
// result back; a process that ended without one gives an error result saying how it ended.
results::CaseResult run_isolated(const results::Case& c, const std::string& plan_file,
                                 const RunSettings& options, bool memory, bool trace,
                                 int repetition, const std::string& scratch, int serial);

// Runs process `index` (0-based) of `of` over every case of the plan: `repetitions` each, the
// first at placement `first_placement`, the memory probe and traces only when asked. Its
// progress lines go to this process's stderr, labelled "process K/P".
ProcessPart run_process(const std::string& plan_file, const RunSettings& options, int index, int of,
                        int repetitions, int first_placement, bool memory, bool trace,
                        const std::string& scratch);

} // namespace opbench::run
