#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "opbench/results/estimate.hpp"
#include "opbench/run/processes.hpp"

namespace opbench::run {
namespace {

// `run --processes` over fake processes: process k measures `shares[k]` repetitions of every case,
// each repetition's median `base + k * 1e-9` for case i at `base = (i + 1) * 1e-6`, unless
// `fail` says it dies (then it kept only `kept_before_dying` of the cases).
struct FakeProcesses {
  std::vector<results::Case> cases;
  std::vector<ProcessTask> tasks;
  std::map<int, std::vector<std::string>> kept; // process -> case ids journalled
  std::vector<results::CaseResult> finished;
  std::vector<std::string> notes;
  std::function<bool(int process)> fail = [](int) { return false; };
  std::size_t kept_before_dying = 0;
  std::map<std::pair<int, std::string>, results::Status> status; // (process, case id) -> status
  int stop_after = -1; // the run is stopped (a signal) after this process (0-based); -1: never

  explicit FakeProcesses(int n) {
    for (int i = 0; i < n; ++i) {
      results::Case c;
      c.case_id = "case" + std::to_string(i);
      c.threads = 1;
      cases.push_back(c);
    }
  }

  SlowSpells run(const RunSettings& settings) {
    ProcessCallbacks on;
    on.start = [&](const ProcessTask& task) {
      tasks.push_back(task);
      ProcessPart part;
      const bool dies = fail(task.index);
      for (std::size_t i = 0; i < cases.size(); ++i) {
        if (dies && i >= kept_before_dying)
          break;
        results::CaseResult r;
        r.c = cases[i];
        const auto it = status.find({task.index, cases[i].case_id});
        r.status = it == status.end() ? results::Status::ok : it->second;
        if (r.status != results::Status::ok)
          r.message = "it broke";
        for (int k = 0; k < task.repetitions; ++k) {
          r.timing.repetition_medians.push_back(static_cast<double>(i + 1) * 1e-6 +
                                                task.index * 1e-9);
        }
        r.estimate = results::estimate_of(r.timing.repetition_medians);
        part.results.cases.push_back(r);
      }
      part.results.summary = {{"slow_spells",
                               {{"repetitions_measured_again", 1},
                                {"repetitions", task.repetitions * static_cast<int>(cases.size())},
                                {"fastest_canary_by_threads", {{"1", 1e-4 * (task.index + 1)}}}}},
                              {"time_spent", {{"retried", 0.5}, {"process_warmup", 0.25}}}};
      if (dies)
        part.problem =
            "process " + std::to_string(task.index + 1) + " ended without finishing (signal 9)";
      return part;
    };
    on.kept = [&](const results::CaseResult& r, int process) {
      kept[process].push_back(r.c.case_id);
    };
    on.finish = [&](results::CaseResult r) { finished.push_back(std::move(r)); };
    on.note = [&](const std::string& line) { notes.push_back(line); };
    on.stopped = [&] { return stop_after >= 0 && static_cast<int>(tasks.size()) > stop_after; };
    return measure_in_processes(
        cases, results::split_repetitions(settings.repetitions, settings.processes), settings, on);
  }
};

RunSettings settings_of(int repetitions, int processes) {
  RunSettings s;
  s.repetitions = repetitions;
  s.processes = processes;
  return s;
}

TEST(Processes, EachCasePoolsTheRepetitionMediansOfEveryProcess) {
  FakeProcesses fake(3);
  const SlowSpells slow = fake.run(settings_of(7, 3));
  ASSERT_EQ(fake.tasks.size(), 3u);
  // 7 repetitions over 3 processes: 3, 2, 2, placed one after another.
  EXPECT_EQ(fake.tasks[0].repetitions, 3);
  EXPECT_EQ(fake.tasks[1].repetitions, 2);
  EXPECT_EQ(fake.tasks[2].repetitions, 2);
  EXPECT_EQ(fake.tasks[1].first_placement, 3);
  EXPECT_EQ(fake.tasks[2].first_placement, 5);
  // The memory probe in the first process only.
  EXPECT_TRUE(fake.tasks[0].memory);
  EXPECT_FALSE(fake.tasks[1].memory);
  ASSERT_EQ(fake.finished.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& r = fake.finished[i];
    EXPECT_EQ(r.c.case_id, "case" + std::to_string(i));
    EXPECT_EQ(r.status, results::Status::ok);
    EXPECT_EQ(r.timing.repetition_medians.size(), 7u);
    EXPECT_TRUE(r.message.empty()) << r.message;
    // fastest-third of 7: the mean of the fastest two, both from the first process.
    EXPECT_DOUBLE_EQ(r.estimate.time, static_cast<double>(i + 1) * 1e-6);
  }
  EXPECT_EQ(fake.kept[0].size(), 3u); // every process's repetitions journalled as it ends
  EXPECT_EQ(fake.kept[2].size(), 3u);
  // What the processes met, summed; the fastest canary the fastest of them.
  EXPECT_EQ(slow.measured_again, 3u);
  EXPECT_EQ(slow.repetitions, 21u);
  EXPECT_DOUBLE_EQ(slow.fastest_canary.at(1), 1e-4);
  EXPECT_DOUBLE_EQ(slow.time_retried, 1.5);
  EXPECT_DOUBLE_EQ(slow.time_process_warmup, 0.75);
  EXPECT_EQ(fake.notes.front(), "process 1 of 3: 3 repetition(s) of each case");
}

TEST(Processes, AProcessThatDiedCostsOnlyItsOwnRepetitions) {
  FakeProcesses fake(2);
  fake.fail = [](int process) { return process == 1; };
  fake.kept_before_dying = 1; // it finished case0, not case1
  fake.run(settings_of(6, 3));
  ASSERT_EQ(fake.finished.size(), 2u);
  EXPECT_EQ(fake.finished[0].timing.repetition_medians.size(), 6u);
  EXPECT_TRUE(fake.finished[0].message.empty());
  const auto& short_one = fake.finished[1];
  EXPECT_EQ(short_one.status, results::Status::ok);
  EXPECT_EQ(short_one.timing.repetition_medians.size(), 4u);
  EXPECT_NE(
      short_one.message.find("4 of 6 repetitions: process 2 ended without finishing (signal 9)"),
      std::string::npos)
      << short_one.message;
  EXPECT_NE(std::find(fake.notes.begin(), fake.notes.end(),
                      "process 2 ended without finishing (signal 9)"),
            fake.notes.end());
}

TEST(Processes, ACaseNoProcessMeasuredIsAnErrorNamingWhy) {
  FakeProcesses fake(1);
  fake.fail = [](int) { return true; };
  fake.run(settings_of(2, 2));
  ASSERT_EQ(fake.finished.size(), 1u);
  EXPECT_EQ(fake.finished[0].status, results::Status::error);
  EXPECT_EQ(fake.finished[0].c.case_id, "case0");
  EXPECT_NE(fake.finished[0].message.find("no process measured it: process 1 ended"),
            std::string::npos)
      << fake.finished[0].message;
}

TEST(Processes, ACaseThatFailedInOneProcessSaysWhichAndWhy) {
  FakeProcesses fake(2);
  fake.status[{2, "case1"}] = results::Status::error;
  fake.run(settings_of(3, 3));
  ASSERT_EQ(fake.finished.size(), 2u);
  EXPECT_EQ(fake.finished[0].status, results::Status::ok);
  EXPECT_EQ(fake.finished[1].status, results::Status::error);
  EXPECT_EQ(fake.finished[1].message, "process 3 of 3: it broke");
}

TEST(Processes, AStoppedRunKeepsWhatItsProcessesMeasuredAndStartsNoOther) {
  FakeProcesses fake(2);
  fake.fail = [](int process) { return process == 1; }; // the signal passed on killed process 2
  fake.kept_before_dying = 1;
  fake.stop_after = 1;
  fake.run(settings_of(6, 3));
  EXPECT_EQ(fake.tasks.size(), 2u); // process 3 never started
  EXPECT_EQ(fake.kept[0], (std::vector<std::string>{"case0", "case1"}));
  EXPECT_EQ(fake.kept[1], (std::vector<std::string>{"case0"}));
  EXPECT_TRUE(fake.finished.empty()); // nothing is judged on a part of the run
}

} // namespace
} // namespace opbench::run
