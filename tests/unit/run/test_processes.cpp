#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "opbench/results/estimate.hpp"
#include "opbench/run/processes.hpp"

namespace opbench::run {
namespace {

// `run --processes` over fake processes: process k measures `task.repetitions` repetitions of
// every case it is not told to leave out, each repetition's median `(i + 1) * 1e-6 + k * 1e-9` for
// case i. It keeps (journals) every repetition but the last of a case, then finishes the case.
// `crash[{k, case id}]` makes process k die when it reaches that case, holding it (the phase and
// how it died said there); `die_after[k]` makes it die after that many cases, holding none.
struct FakeProcesses {
  struct Crash {
    std::string how = "SIGSEGV";
    measure::Phase phase = measure::Phase::timed;
    int repetition = 0; // within the share
    bool timeout = false;
  };
  std::vector<results::Case> cases;
  std::vector<ProcessTask> tasks;
  std::map<int, std::vector<std::string>> kept; // process -> case ids journalled
  std::vector<results::CaseResult> finished;
  std::vector<std::string> notes;
  std::map<std::pair<int, std::string>, Crash> crash;
  std::map<int, std::size_t> die_after;
  std::map<std::pair<int, std::string>, results::Status> status; // (process, case id) -> status
  std::map<std::pair<int, std::string>, double> slower; // (process, case id) -> its medians' factor
  int stop_after = -1; // the run is stopped (a signal) after this many processes started; -1 never
  std::size_t finished_while_running = 0; // cases finished before the last process returned

  explicit FakeProcesses(int n) {
    for (int i = 0; i < n; ++i) {
      results::Case c;
      c.case_id = "case" + std::to_string(i);
      c.threads = 1;
      cases.push_back(c);
    }
  }

  double median(std::size_t i, int k) const {
    const auto it = slower.find({k, cases[i].case_id});
    return (static_cast<double>(i + 1) * 1e-6 + k * 1e-9) * (it == slower.end() ? 1 : it->second);
  }

  results::CaseResult repetition(std::size_t i, int k) const {
    results::CaseResult r;
    r.c = cases[i];
    r.timing.repetition_medians = {median(i, k)};
    r.estimate = results::estimate_of(r.timing.repetition_medians);
    return r;
  }

  SlowSpells run(const RunSettings& settings) {
    ProcessCallbacks on;
    on.start = [&](const ProcessTask& task, const ProcessEvents& events) {
      tasks.push_back(task);
      ProcessEnd end;
      std::size_t measured = 0;
      for (std::size_t i = 0; i < cases.size(); ++i) {
        const std::string& id = cases[i].case_id;
        if (task.resume.left_out.count(id) > 0)
          continue;
        const auto done = task.resume.done.find(id);
        const std::set<int> kept_before =
            done == task.resume.done.end() ? std::set<int>{} : done->second;
        if (static_cast<int>(kept_before.size()) >= task.repetitions)
          continue;
        if (const auto d = die_after.find(task.index);
            d != die_after.end() && measured >= d->second && task.attempt == 0) {
          end.how = "SIGKILL";
          return end;
        }
        if (const auto c = crash.find({task.index, id}); c != crash.end()) {
          for (int r = 0; r < c->second.repetition; ++r) {
            if (kept_before.count(r) == 0)
              events.repetition(repetition(i, task.index), r);
          }
          end.how = c->second.how;
          end.timed_out = c->second.timeout;
          end.limit = 60;
          measure::Held held;
          held.case_id = id;
          held.repetition = task.first_placement + c->second.repetition;
          held.phase = c->second.phase;
          end.held = held;
          return end;
        }
        results::CaseResult r;
        r.c = cases[i];
        const auto it = status.find({task.index, id});
        r.status = it == status.end() ? results::Status::ok : it->second;
        if (r.status != results::Status::ok)
          r.message = "it broke";
        for (int k = 0; k < task.repetitions; ++k) {
          if (kept_before.count(k) > 0)
            continue;
          r.timing.repetition_medians.push_back(median(i, task.index));
        }
        r.estimate = results::estimate_of(r.timing.repetition_medians);
        r.timing.block_size = static_cast<std::int64_t>(10 * (i + 1) + task.index);
        events.finished(r);
        ++measured;
      }
      if (task.index + 1 == task.of)
        finished_while_running = finished.size();
      end.finished = true;
      end.summary = {{"slow_spells",
                      {{"repetitions_measured_again", 1},
                       {"repetitions", task.repetitions * static_cast<int>(cases.size())},
                       {"fastest_canary_by_threads", {{"1", 1e-4 * (task.index + 1)}}}}},
                     {"time_spent", {{"retried", 0.5}, {"process_warmup", 0.25}}}};
      return end;
    };
    on.kept = [&](const results::CaseResult& r, int process) {
      kept[process].push_back(r.c.case_id);
    };
    on.finish = [&](results::CaseResult r) { finished.push_back(std::move(r)); };
    on.note = [&](const std::string& line) { notes.push_back(line); };
    on.stopped = [&] { return stop_after >= 0 && static_cast<int>(tasks.size()) >= stop_after; };
    return measure_in_processes(
        cases, results::split_repetitions(settings.repetitions, settings.processes), settings, on);
  }

  const results::CaseResult& result(const std::string& id) const {
    return *std::find_if(finished.begin(), finished.end(),
                         [&](const results::CaseResult& r) { return r.c.case_id == id; });
  }
};

// Every case in every process (--interval-target 0): the tests of crashes and restarts.
RunSettings settings_of(int repetitions, int processes) {
  RunSettings s;
  s.repetitions = repetitions;
  s.processes = processes;
  s.interval_target = 0;
  return s;
}

TEST(Processes, ACaseKnownAfterTheFirstProcessesIsDoneAndTheNextOnesLeaveItOut) {
  FakeProcesses fake(3);
  fake.slower[{1, "case1"}] = 1.10; // process 2 measures case1 10% slower than process 1
  RunSettings settings = settings_of(6, 3);
  settings.interval_target = 0.03;
  fake.run(settings);
  ASSERT_EQ(fake.tasks.size(), 3u);
  EXPECT_TRUE(fake.tasks[1].resume.left_out.empty());
  EXPECT_EQ(fake.tasks[2].resume.left_out, (std::set<std::string>{"case0", "case2"}));
  // Known within 3% after two processes: done with their four repetitions, nothing said missing.
  for (const char* known : {"case0", "case2"}) {
    const auto& r = fake.result(known);
    EXPECT_EQ(r.timing.repetition_processes, (std::vector<int>{0, 0, 1, 1})) << known;
    EXPECT_TRUE(r.message.empty()) << r.message;
    EXPECT_LE(r.estimate.interval.half_width, 0.03);
  }
  // case1's processes 10% apart: a third process, which agrees with the first and narrows it.
  const auto& open = fake.result("case1");
  EXPECT_EQ(open.timing.repetition_processes, (std::vector<int>{0, 0, 1, 1, 2, 2}));
  EXPECT_TRUE(open.message.empty()) << open.message;
  EXPECT_DOUBLE_EQ(open.estimate.interval.half_width, results::k_run_allowance);
  EXPECT_NE(std::find(fake.notes.begin(), fake.notes.end(),
                      "process 3 of 3: 2 repetition(s) of the 1 case(s) not yet known within "
                      "+-3.0% (2 are)"),
            fake.notes.end());
}

TEST(Processes, InANoisyRunNoCaseIsGivenANarrowerIntervalThanTheTypicalCase) {
  FakeProcesses fake(3);
  // Process 2 measures two of the three cases 10% slower: the typical case's own width is 15%.
  fake.slower[{1, "case0"}] = 1.10;
  fake.slower[{1, "case1"}] = 1.10;
  RunSettings settings = settings_of(6, 3);
  settings.interval_target = 0.03;
  fake.run(settings);
  // No case was known within 3% after two processes: the run's allowance was 15%.
  EXPECT_TRUE(fake.tasks[2].resume.left_out.empty());
  const auto& calm = fake.result("case2");
  // The median case's own width: case1's, ((2 + 0.001) x 1.1 - 2) / 2 x 1.5.
  EXPECT_NEAR(calm.estimate.interval.half_width, 1.5 * 0.10055, 1e-9);
  EXPECT_EQ(calm.estimate.interval.wide, results::WideReason::noisy_run);
}

TEST(Processes, WhenEveryCaseIsKnownNoFurtherProcessStarts) {
  FakeProcesses fake(2);
  RunSettings settings = settings_of(8, 4);
  settings.interval_target = 0.03;
  settings.min_processes = 3;
  fake.run(settings);
  EXPECT_EQ(fake.tasks.size(), 3u); // --min-processes, then every case was known
  for (const auto& r : fake.finished)
    EXPECT_EQ(r.timing.repetition_medians.size(), 6u);
  EXPECT_EQ(fake.notes.back(), "every case known within +-3.0% after 3 process(es); 1 more not "
                               "started");
}

TEST(Processes, ACaseThatFailedIsNeverStoppedEarly) {
  FakeProcesses fake(2);
  fake.crash[{0, "case1"}] = {"SIGSEGV", measure::Phase::timed, 1};
  RunSettings settings = settings_of(6, 3);
  settings.interval_target = 0.03;
  fake.run(settings);
  // case0 is known after two processes; case1 crashed in the first and goes on to the third,
  // which runs it (and only it).
  EXPECT_EQ(fake.tasks.back().resume.left_out, (std::set<std::string>{"case0"}));
  EXPECT_EQ(fake.result("case1").status, results::Status::error);
  EXPECT_EQ(fake.result("case0").timing.repetition_medians.size(), 4u);
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
  EXPECT_EQ(fake.kept[0].size(), 3u); // every process's cases journalled as they finish
  EXPECT_EQ(fake.kept[2].size(), 3u);
  // The last process's cases are over as it finishes them, not when it ends.
  EXPECT_EQ(fake.finished_while_running, 3u);
  // What the processes met, summed; the fastest canary the fastest of them.
  EXPECT_EQ(slow.measured_again, 3u);
  EXPECT_EQ(slow.repetitions, 21u);
  EXPECT_DOUBLE_EQ(slow.fastest_canary.at(1), 1e-4);
  EXPECT_DOUBLE_EQ(slow.time_retried, 1.5);
  EXPECT_DOUBLE_EQ(slow.time_process_warmup, 0.75);
  EXPECT_EQ(fake.notes.front(), "process 1 of 3: 3 repetition(s) of each case");
}

// What a process finds of each case (block size, fastest time per call) goes to the next one, so
// that its repetitions can start warm; the first process starts with nothing.
TEST(Processes, EachProcessIsHandedWhatTheOnesBeforeItFound) {
  FakeProcesses fake(2);
  fake.slower[{1, "case1"}] = 0.5; // process 2 finds case1 faster than process 1 did
  fake.run(settings_of(6, 3));
  ASSERT_EQ(fake.tasks.size(), 3u);
  EXPECT_TRUE(fake.tasks[0].calibration.empty());
  ASSERT_EQ(fake.tasks[1].calibration.size(), 2u);
  EXPECT_EQ(fake.tasks[1].calibration.at("case0").block_size, 10);
  EXPECT_DOUBLE_EQ(fake.tasks[1].calibration.at("case0").seconds_per_call, fake.median(0, 0));
  EXPECT_EQ(fake.tasks[1].calibration.at("case1").block_size, 20);
  // Later: the last block size, and the fastest time per call of all the processes before.
  EXPECT_EQ(fake.tasks[2].calibration.at("case0").block_size, 11);
  EXPECT_DOUBLE_EQ(fake.tasks[2].calibration.at("case0").seconds_per_call, fake.median(0, 0));
  EXPECT_EQ(fake.tasks[2].calibration.at("case1").block_size, 21);
  EXPECT_DOUBLE_EQ(fake.tasks[2].calibration.at("case1").seconds_per_call, fake.median(1, 1));
}

TEST(Processes, ACrashTakesDownItsOwnCaseOnlyAndAFreshProcessGoesOn) {
  FakeProcesses fake(3);
  fake.crash[{0, "case1"}] = {"SIGSEGV", measure::Phase::timed, 1};
  fake.run(settings_of(6, 3));
  // Process 1 ran twice: the second leaves case1 out and does only what the first had not kept.
  ASSERT_EQ(fake.tasks.size(), 4u);
  EXPECT_EQ(fake.tasks[1].index, 0);
  EXPECT_EQ(fake.tasks[1].attempt, 1);
  EXPECT_EQ(fake.tasks[1].resume.left_out, (std::set<std::string>{"case1"}));
  EXPECT_EQ(fake.tasks[1].resume.done.at("case0"), (std::set<int>{0, 1}));
  EXPECT_EQ(fake.tasks[1].resume.done.at("case1"), (std::set<int>{0}));
  ASSERT_EQ(fake.finished.size(), 3u);
  for (const char* innocent : {"case0", "case2"}) {
    const auto& r = fake.result(innocent);
    EXPECT_EQ(r.status, results::Status::ok) << r.message;
    EXPECT_EQ(r.timing.repetition_medians.size(), 6u) << innocent;
    EXPECT_TRUE(r.message.empty()) << r.message;
  }
  const auto& culprit = fake.result("case1");
  EXPECT_EQ(culprit.status, results::Status::error);
  EXPECT_EQ(culprit.message,
            "SIGSEGV in the timed blocks, repetition 2 of 6 (process 1 of 3); it failed in 1 of "
            "the 3 process(es) that ran it; 5 repetition(s) measured elsewhere are kept, not "
            "judged");
  // What was measured of it stays in the record.
  EXPECT_EQ(culprit.timing.repetition_medians.size(), 5u);
  EXPECT_NE(std::find_if(fake.notes.begin(), fake.notes.end(),
                         [](const std::string& n) {
                           return n.find("process 1 of 3: case1: SIGSEGV in the timed blocks") !=
                                  std::string::npos;
                         }),
            fake.notes.end());
}

TEST(Processes, ACaseThatCrashesEveryProcessSaysSoOnce) {
  FakeProcesses fake(2);
  for (int k = 0; k < 3; ++k)
    fake.crash[{k, "case0"}] = {"SIGABRT", measure::Phase::check, 0};
  fake.run(settings_of(6, 3));
  const auto& culprit = fake.result("case0");
  EXPECT_EQ(culprit.status, results::Status::error);
  EXPECT_EQ(culprit.message, "SIGABRT in the check of its outputs, repetition 1 of 6 (process 1 "
                             "of 3); it failed in 3 of the 3 process(es) that ran it");
  EXPECT_EQ(fake.result("case1").timing.repetition_medians.size(), 6u);
}

TEST(Processes, ACaseHeldPastTheLimitIsATimeout) {
  FakeProcesses fake(2);
  FakeProcesses::Crash hang;
  hang.how = "SIGKILL";
  hang.timeout = true;
  for (int k = 0; k < 2; ++k)
    fake.crash[{k, "case1"}] = hang;
  fake.run(settings_of(2, 2));
  const auto& hung = fake.result("case1");
  EXPECT_EQ(hung.status, results::Status::timeout);
  EXPECT_NE(hung.message.find("held the timed blocks, repetition 1 of 2, past the 60 s limit "
                              "(--case-timeout); killed (process 1 of 2)"),
            std::string::npos)
      << hung.message;
  EXPECT_EQ(fake.result("case0").status, results::Status::ok);
}

TEST(Processes, AProcessThatDiedHoldingNoCaseIsStartedAgainWhileItGetsFurther) {
  FakeProcesses fake(3);
  fake.die_after[1] = 1; // process 2 dies after its first case, holding none, the first time
  fake.run(settings_of(6, 3));
  ASSERT_EQ(fake.tasks.size(), 4u);
  for (const auto& r : fake.finished) {
    EXPECT_EQ(r.status, results::Status::ok);
    EXPECT_EQ(r.timing.repetition_medians.size(), 6u) << r.c.case_id;
  }
  EXPECT_NE(std::find(fake.notes.begin(), fake.notes.end(),
                      "process 2 of 3 ended without finishing (SIGKILL)"),
            fake.notes.end());
}

TEST(Processes, AProcessThatDiesBeforeAnyProgressIsNotStartedAgain) {
  FakeProcesses fake(1);
  fake.die_after[0] = 0;
  fake.die_after[1] = 0;
  fake.run(settings_of(2, 2));
  EXPECT_EQ(fake.tasks.size(), 2u);
  ASSERT_EQ(fake.finished.size(), 1u);
  EXPECT_EQ(fake.finished[0].status, results::Status::error);
  EXPECT_NE(fake.finished[0].message.find("no process measured it: process 1 of 2 ended"),
            std::string::npos)
      << fake.finished[0].message;
}

TEST(Processes, ACaseThatFailedInOneProcessSaysWhichAndWhy) {
  FakeProcesses fake(2);
  fake.status[{2, "case1"}] = results::Status::error;
  fake.run(settings_of(3, 3));
  ASSERT_EQ(fake.finished.size(), 2u);
  EXPECT_EQ(fake.result("case0").status, results::Status::ok);
  EXPECT_EQ(fake.result("case1").status, results::Status::error);
  EXPECT_EQ(fake.result("case1").message, "process 3 of 3: it broke");
}

TEST(Processes, AStoppedRunKeepsWhatItsProcessesMeasuredAndStartsNoOther) {
  FakeProcesses fake(2);
  fake.crash[{1, "case1"}] = {"SIGTERM", measure::Phase::timed, 0}; // the signal passed on
  fake.stop_after = 2;
  fake.run(settings_of(6, 3));
  EXPECT_EQ(fake.tasks.size(), 2u); // process 3 never started, process 2 not again
  EXPECT_EQ(fake.kept[0], (std::vector<std::string>{"case0", "case1"}));
  EXPECT_EQ(fake.kept[1], (std::vector<std::string>{"case0"}));
  EXPECT_TRUE(fake.finished.empty()); // nothing is judged on a part of the run
}

TEST(Processes, AResumeRecordReadsBackAsWritten) {
  Resume resume;
  resume.done["a\nb"] = {0, 2};
  resume.left_out = {"c"};
  const Resume back = resume_from_json(to_json(resume), "r.json");
  EXPECT_EQ(back.done, resume.done);
  EXPECT_EQ(back.left_out, resume.left_out);
  EXPECT_THROW(resume_from_json(Json::parse(R"({"done": {"x": [-1]}, "left_out": []})"), "r"),
               ResultsError);
  EXPECT_THROW(resume_from_json(Json::array(), "r"), ResultsError);
}

} // namespace
} // namespace opbench::run
