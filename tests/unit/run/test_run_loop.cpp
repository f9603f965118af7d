#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "opbench/run/run_loop.hpp"

namespace opbench::run {
namespace {

// A run of fake cases: each measurement returns a repetition whose speed canary, status and
// memory canary readings (none when 0) are what `canary_of`, `status_of` and `bandwidth_of` say
// for the call's number (0-based, over the whole run).
struct FakeRun {
  std::vector<results::Case> cases;
  std::vector<std::string> measured;              // case id per call, in order
  std::vector<measure::ExecOptions> options_seen; // per call
  std::map<std::string, int> kept;                // case id -> kept repetitions reported
  std::vector<results::CaseResult> finished;      // in order
  std::function<double(std::size_t)> canary_of = [](std::size_t) { return 1e-4; };
  std::function<std::string(const std::string&, std::size_t)> status_of =
      [](const std::string&, std::size_t) { return std::string("ok"); };
  std::function<double(std::size_t)> bandwidth_of = [](std::size_t) { return 0.0; };
  // CUDA cases' device state per call (none when it gives nullopt).
  std::function<std::optional<results::RepetitionDeviceState>(std::size_t)> device_state_of =
      [](std::size_t) { return std::optional<results::RepetitionDeviceState>(); };
  std::function<double(std::size_t)> median_of = [](std::size_t call) {
    return 1e-6 * (1 + static_cast<double>(call % 7) / 100);
  };

  explicit FakeRun(int n) {
    for (int i = 0; i < n; ++i) {
      results::Case c;
      c.case_id = "case" + std::to_string(i);
      c.threads = 1;
      c.device = "cpu";
      cases.push_back(c);
    }
  }

  SlowSpells run(const LoopOptions& options) {
    LoopCallbacks on;
    on.options_for = [](const results::Case&, const Job& job) {
      measure::ExecOptions o;
      o.repetition = job.repetition;
      o.memory = job.repetition == 0;
      o.describe = job.repetition == 0;
      return o;
    };
    on.measure = [this](const results::Case& c, const measure::ExecOptions& o) {
      const std::size_t call = measured.size();
      measured.push_back(c.case_id);
      options_seen.push_back(o);
      results::CaseResult r;
      r.c = c;
      r.status =
          core::parse_name_or_throw<results::Status>(status_of(c.case_id, call), "status", "test");
      if (r.status != results::Status::ok)
        r.message = "it broke";
      r.timing.canary = canary_of(call);
      r.timing.repetition_medians = {median_of(call)};
      r.timing.block_size = 100 + static_cast<std::int64_t>(call);
      r.timing.total_time = 1e-3;
      if (const double bandwidth = bandwidth_of(call); bandwidth > 0)
        r.timing.repetition_bandwidth = {{bandwidth, bandwidth}};
      if (const auto state = device_state_of(call))
        r.timing.repetition_device_state = {*state};
      return r;
    };
    on.kept = [this](const results::CaseResult& r, int) { ++kept[r.c.case_id]; };
    on.finish = [this](results::CaseResult r) { finished.push_back(std::move(r)); };
    return run_loop(cases, options, on);
  }
};

LoopOptions quick(int repetitions) {
  LoopOptions o = loop_options(RunSettings{});
  o.repetitions = repetitions;
  o.process_warmup = 0;
  return o;
}

TEST(RunLoop, EveryCaseGetsItsRepetitionsCombinedOnce) {
  FakeRun fake(4);
  const SlowSpells slow = fake.run(quick(3));
  EXPECT_EQ(fake.measured.size(), 12u);
  ASSERT_EQ(fake.finished.size(), 4u);
  for (const auto& r : fake.finished) {
    EXPECT_EQ(r.status, results::Status::ok);
    EXPECT_EQ(r.timing.repetition_medians.size(), 3u) << r.c.case_id;
    EXPECT_EQ(r.estimate.estimator, "fastest-third");
    EXPECT_EQ(fake.kept[r.c.case_id], 3) << r.c.case_id; // each, the last one before the case
  }
  EXPECT_EQ(slow.repetitions, 12u);
  EXPECT_EQ(slow.measured_again, 0u);
  EXPECT_DOUBLE_EQ(slow.fastest_canary.at(1), 1e-4);
  EXPECT_EQ(slow.time_process_warmup, 0.0);
}

TEST(RunLoop, ARepetitionInASlowSpellIsMeasuredAgainLater) {
  FakeRun fake(3);
  // The fourth call's canary is twice the fastest: that repetition is not kept.
  fake.canary_of = [](std::size_t call) { return call == 3 ? 2e-4 : 1e-4; };
  const SlowSpells slow = fake.run(quick(2));
  EXPECT_EQ(fake.measured.size(), 7u); // 6 jobs and the one measured again
  EXPECT_EQ(slow.measured_again, 1u);
  EXPECT_GT(slow.time_retried, 0.0);
  std::size_t retried = 0;
  for (const auto& r : fake.finished) {
    EXPECT_EQ(r.timing.repetition_medians.size(), 2u);
    retried += static_cast<std::size_t>(r.timing.retried_repetitions);
  }
  EXPECT_EQ(retried, 1u);
  // With no retries allowed, the slow repetition is kept.
  FakeRun kept(3);
  kept.canary_of = fake.canary_of;
  LoopOptions none = quick(2);
  none.retries = 0;
  EXPECT_EQ(kept.run(none).measured_again, 0u);
  EXPECT_EQ(kept.measured.size(), 6u);
}

// A GPU at 1980 MHz with nothing holding it down, or power-capped / at a lower clock.
results::RepetitionDeviceState gpu_at(double mhz, std::uint64_t reasons = 0) {
  results::DeviceState s;
  s.sm_clock_mhz = mhz;
  s.memory_clock_mhz = 2619;
  s.reasons = reasons;
  s.temperature_c = 40;
  s.power_w = 120;
  return {s, s};
}

TEST(RunLoop, ARepetitionOnASlowedGpuIsMeasuredAgainThenMarkedIfKept) {
  // One case, 5 repetitions (the run may measure 2 again): call 1 at a clock 20% under the
  // case's highest, call 2 thermally slowed: both measured again; call 3 read idle at a low clock
  // (before its first call): kept.
  FakeRun fake(1);
  fake.cases[0].device = "cuda:0";
  fake.device_state_of = [](std::size_t call) {
    return std::optional<results::RepetitionDeviceState>(
        call == 1   ? gpu_at(1584)
        : call == 2 ? gpu_at(1980, results::clock_reason::sw_thermal_slowdown)
        : call == 3 ? gpu_at(345, results::clock_reason::gpu_idle)
                    : gpu_at(1980));
  };
  const SlowSpells slow = fake.run(quick(5));
  EXPECT_EQ(fake.measured.size(), 7u); // 5 jobs and the 2 measured again
  EXPECT_EQ(slow.measured_again, 2u);
  EXPECT_EQ(slow.device_measured_again, 2u);
  EXPECT_EQ(slow.device_slowed_kept, 0u);
  EXPECT_DOUBLE_EQ(slow.highest_sm_clock.at("cuda:0"), 1980.0);
  ASSERT_EQ(fake.finished.size(), 1u);
  EXPECT_EQ(fake.finished[0].timing.repetition_device_state.size(), 5u);
  EXPECT_EQ(fake.finished[0].timing.device_slowed_repetitions, 0);
  // Two cases on one device: a small kernel at 1980 MHz and a large one at its own lower clock in
  // every repetition (under its power cap). Each is judged against its own repetitions, so the
  // large one is not slowed; against the device's highest, 1410 would lie 29% under 1980. The
  // case measured first is the small one, so the device's highest is 1980 before any large
  // repetition, whatever order the run takes.
  FakeRun mixed(2);
  for (auto& c : mixed.cases)
    c.device = "cuda:0";
  mixed.device_state_of = [&mixed](std::size_t) {
    return std::optional<results::RepetitionDeviceState>(
        mixed.measured.back() == mixed.measured.front()
            ? gpu_at(1980)
            : gpu_at(1410, results::clock_reason::sw_power_cap));
  };
  const SlowSpells both = mixed.run(quick(3));
  EXPECT_EQ(both.device_measured_again, 0u);
  EXPECT_EQ(both.device_slowed_kept, 0u);
  EXPECT_EQ(mixed.measured.size(), 6u);
  for (const auto& r : mixed.finished)
    EXPECT_EQ(r.timing.device_slowed_repetitions, 0) << r.c.case_id;
  EXPECT_DOUBLE_EQ(both.highest_sm_clock.at("cuda:0"), 1980.0);
  const Json spells = slow_spells_json(slow, 0.1);
  EXPECT_EQ(spells["device_measured_again"], 2);
  EXPECT_EQ(spells["highest_sm_clock_mhz"]["cuda:0"], 1980.0);
  EXPECT_NE(describe_measured_again(slow, 0.1).find("2 ran on a slowed GPU"), std::string::npos);

  // No retries: the capped repetition is kept, and its case says so.
  FakeRun kept(1);
  kept.cases[0].device = "cuda:0";
  kept.device_state_of = [](std::size_t call) {
    return std::optional<results::RepetitionDeviceState>(
        gpu_at(1980, call == 1 ? results::clock_reason::hw_thermal_slowdown : 0));
  };
  LoopOptions none = quick(3);
  none.retries = 0;
  const SlowSpells marked = kept.run(none);
  EXPECT_EQ(kept.measured.size(), 3u);
  EXPECT_EQ(marked.device_slowed_kept, 1u);
  ASSERT_EQ(kept.finished.size(), 1u);
  EXPECT_EQ(kept.finished[0].timing.device_slowed_repetitions, 1);
  // A CPU run says nothing of GPUs.
  FakeRun cpu(1);
  EXPECT_FALSE(slow_spells_json(cpu.run(quick(2)), 0.1).contains("device_measured_again"));
}

TEST(RunLoop, RepetitionsThatDisagreeAreMeasuredAgainAndMarkedWhenTheyStillDo) {
  // One case of 3 repetitions: 1 us, 1 us, then 5 us (over results::k_unstable_ratio from the
  // others); measured again it runs at 1 us: the case is stable, from 3 agreeing repetitions.
  FakeRun fake(1);
  fake.median_of = [](std::size_t call) { return call == 2 ? 5e-6 : 1e-6; };
  SlowSpells slow = fake.run(quick(3));
  EXPECT_EQ(fake.measured.size(), 4u);
  ASSERT_EQ(fake.finished.size(), 1u);
  EXPECT_FALSE(fake.finished[0].estimate.unstable);
  EXPECT_EQ(fake.finished[0].timing.repetition_medians, (std::vector<double>{1e-6, 1e-6, 1e-6}));
  EXPECT_EQ(fake.finished[0].timing.retried_repetitions, 1);
  EXPECT_EQ(slow.unstable_measured_again, 1u);
  EXPECT_EQ(fake.kept["case0"], 3); // the disagreeing one never reached the journal, its redo did

  // A case that keeps switching between two levels: measured again while the retries last (2
  // per repetition), then kept and marked unstable.
  FakeRun flipping(1);
  flipping.median_of = [](std::size_t call) { return call % 2 == 0 ? 1e-6 : 4e-6; };
  slow = flipping.run(quick(4));
  ASSERT_EQ(flipping.finished.size(), 1u);
  EXPECT_TRUE(flipping.finished[0].estimate.unstable);
  EXPECT_GT(slow.unstable_measured_again, 0u);
  EXPECT_LE(flipping.measured.size(), 4u + 2u * 4u);

  // No retries: marked at once.
  FakeRun at_once(1);
  at_once.median_of = [](std::size_t call) { return call == 2 ? 5e-6 : 1e-6; };
  LoopOptions none = quick(3);
  none.retries = 0;
  slow = at_once.run(none);
  EXPECT_EQ(at_once.measured.size(), 3u);
  EXPECT_TRUE(at_once.finished[0].estimate.unstable);
  EXPECT_EQ(slow.unstable_measured_again, 0u);
}

TEST(RunLoop, AFailedRepetitionEndsItsCaseAndNotTheOthers) {
  FakeRun fake(3);
  fake.status_of = [](const std::string& id, std::size_t) {
    return std::string(id == "case1" ? "error" : "ok");
  };
  LoopOptions options = quick(4);
  options.interleave = false;
  options.first_placement = 2; // the second process's share of a run of 6 repetitions
  options.run_repetitions = 6;
  fake.run(options);
  EXPECT_EQ(fake.measured.size(), 9u); // case1 stopped after its first repetition
  ASSERT_EQ(fake.finished.size(), 3u);
  EXPECT_EQ(fake.finished[1].c.case_id, "case1");
  EXPECT_EQ(fake.finished[1].status, results::Status::error);
  EXPECT_EQ(fake.finished[1].message, "repetition 3 of 6: it broke"); // among the run's
  EXPECT_EQ(fake.finished[0].status, results::Status::ok);
  EXPECT_EQ(fake.finished[2].status, results::Status::ok);
}

TEST(RunLoop, TheProcessWarmsUpOnItsFirstJobAndDropsIt) {
  FakeRun fake(2);
  LoopOptions options = quick(2);
  options.interleave = false;
  options.process_warmup = 0.01;
  const SlowSpells slow = fake.run(options);
  ASSERT_GT(fake.measured.size(), 4u); // the dropped ones come first, then the 4 jobs
  const std::size_t dropped = fake.measured.size() - 4;
  for (std::size_t i = 0; i < dropped; ++i) {
    EXPECT_EQ(fake.measured[i], "case0");
    EXPECT_FALSE(fake.options_seen[i].memory); // no probe, no recording, no trace in the warm-up
    EXPECT_FALSE(fake.options_seen[i].describe);
  }
  EXPECT_TRUE(fake.options_seen[dropped].memory); // the first kept repetition probes memory
  EXPECT_GE(slow.time_process_warmup, 0.01);
  for (const auto& r : fake.finished)
    EXPECT_EQ(r.timing.repetition_medians.size(), 2u);
}

TEST(RunLoop, RepetitionsOffTheUsualBandwidthAreSetAsideOnlyWhereTheLoopDecides) {
  // One case, 24 repetitions streaming at 40 GB/s but the 21st at 80 GB/s (after the level is set).
  for (const bool here : {true, false}) {
    FakeRun fake(1);
    fake.bandwidth_of = [](std::size_t call) { return call == 20 ? 80e9 : 40e9; };
    LoopOptions options = quick(24);
    options.retries = 0; // kept, so that it is set aside (or not) at the end
    options.set_aside_here = here;
    const SlowSpells slow = fake.run(options);
    ASSERT_EQ(fake.finished.size(), 1u);
    EXPECT_EQ(fake.finished[0].timing.set_aside.size(), here ? 1u : 0u);
    EXPECT_EQ(fake.finished[0].timing.repetition_medians.size(), here ? 23u : 24u);
    EXPECT_EQ(slow.bandwidth.set_aside(), here ? 1u : 0u);
  }
}

// A CPU case's repetitions start from what its earlier ones found: the first from what earlier
// processes handed on (none here for case0), each later one from the block size of the last kept
// one and the fastest time per call so far. A repetition measured again or one that failed teaches
// nothing, and a CUDA case is never given a calibration.
TEST(RunLoop, ACaseRepetitionsStartFromWhatItsEarlierOnesFound) {
  FakeRun fake(3);
  fake.cases[2].device = "cuda:0";
  fake.median_of = [](std::size_t call) { return call == 1 ? 1e-6 : 2e-6; };
  LoopOptions options = quick(3);
  options.interleave = false;
  options.calibration["case1"] = {42, 3e-6};
  fake.run(options);
  ASSERT_EQ(fake.measured.size(), 9u);
  // case0: nothing known at first; then the first repetition's (call 0), then the faster
  // second's time with its block size (call 1).
  EXPECT_EQ(fake.options_seen[0].measure.known.block_size, 0);
  EXPECT_EQ(fake.options_seen[1].measure.known.block_size, 100);
  EXPECT_DOUBLE_EQ(fake.options_seen[1].measure.known.seconds_per_call, 2e-6);
  EXPECT_EQ(fake.options_seen[2].measure.known.block_size, 101);
  EXPECT_DOUBLE_EQ(fake.options_seen[2].measure.known.seconds_per_call, 1e-6);
  // case1: from the handed-on calibration, then its own repetitions' (2e-6 is faster than 3e-6).
  EXPECT_EQ(fake.options_seen[3].measure.known.block_size, 42);
  EXPECT_DOUBLE_EQ(fake.options_seen[3].measure.known.seconds_per_call, 3e-6);
  EXPECT_EQ(fake.options_seen[4].measure.known.block_size, 103);
  EXPECT_DOUBLE_EQ(fake.options_seen[4].measure.known.seconds_per_call, 2e-6);
  for (std::size_t i = 6; i < 9; ++i)
    EXPECT_EQ(fake.options_seen[i].measure.known.block_size, 0) << "CUDA call " << i;

  // A repetition measured again (a slow spell) is not learned from.
  FakeRun slowed(1);
  slowed.canary_of = [](std::size_t call) { return call == 1 ? 2e-4 : 1e-4; };
  LoopOptions again = quick(3);
  again.interleave = false;
  slowed.run(again);
  ASSERT_EQ(slowed.measured.size(), 4u);
  EXPECT_EQ(slowed.options_seen[1].measure.known.block_size, 100);
  EXPECT_EQ(slowed.options_seen[2].measure.known.block_size, 100); // not call 1's 101
  EXPECT_EQ(slowed.options_seen[3].measure.known.block_size, 102);
}

TEST(RunLoop, CalibrationRecordsRoundTripAndABadOneIsNamed) {
  Calibrations calibration;
  calibration["a/b"] = {12, 1.5e-6};
  const Calibrations back = calibrations_from_json(to_json(calibration), "x.json");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back.at("a/b").block_size, 12);
  EXPECT_DOUBLE_EQ(back.at("a/b").seconds_per_call, 1.5e-6);
  for (const char* bad :
       {R"([1])", R"({"a": {"block_size": 0, "seconds_per_call": 1}})",
        R"({"a": {"block_size": 2}})", R"({"a": {"block_size": 2, "seconds_per_call": -1}})"}) {
    try {
      calibrations_from_json(Json::parse(bad), "x.json");
      ADD_FAILURE() << bad;
    } catch (const ResultsError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("x.json: ", 0), 0u) << e.what();
    }
  }
}

} // namespace
} // namespace opbench::run
