#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "opbench/core/error.hpp"
#include "opbench/results/device_state.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/store.hpp"
#include "sample_result.hpp"

namespace opbench::results {
namespace {

using testing_support::make_result;

DeviceState reading(double mhz, std::uint64_t reasons) {
  DeviceState s;
  s.sm_clock_mhz = mhz;
  s.memory_clock_mhz = 2619;
  s.reasons = reasons;
  s.temperature_c = 51;
  s.power_w = 312.5;
  return s;
}

TEST(DeviceState, ReasonsAreNvmlsNamesAndOnlySlowdownsSlow) {
  EXPECT_EQ(clock_reason_names(0), std::vector<std::string>{});
  EXPECT_EQ(clock_reason_names(clock_reason::gpu_idle | clock_reason::sw_power_cap |
                               (std::uint64_t{1} << 40)),
            (std::vector<std::string>{"gpu_idle", "sw_power_cap", "0x10000000000"}));
  // Idle, application clocks, sync boost, the display: states and settings, not slowdowns.
  const std::uint64_t settings = clock_reason::gpu_idle |
                                 clock_reason::applications_clocks_setting |
                                 clock_reason::sync_boost | clock_reason::display_clock_setting;
  EXPECT_FALSE(slowed({reading(1980, settings), reading(1980, settings)}, 1980, 0.1));
  // A power-capped device is judged by its clock: a large kernel runs capped at its own clock.
  EXPECT_FALSE(slowed({reading(1980, clock_reason::sw_power_cap), reading(1980, 0)}, 1980, 0.1));
  EXPECT_TRUE(slowed({reading(1500, clock_reason::sw_power_cap), reading(1980, 0)}, 1980, 0.1));
  for (std::uint64_t slow :
       {clock_reason::hw_slowdown, clock_reason::sw_thermal_slowdown,
        clock_reason::hw_thermal_slowdown, clock_reason::hw_power_brake_slowdown}) {
    EXPECT_TRUE(slowed({reading(1980, 0), reading(1980, slow)}, 0, 0.1)) << slow;
  }
  EXPECT_EQ(slowed_because({reading(1980, 0),
                            reading(1980, clock_reason::sw_power_cap | clock_reason::hw_slowdown)},
                           0, 0.1),
            "hw_slowdown at the end");
}

TEST(DeviceState, AClockUnderTheUsualByMoreThanTheToleranceSlows) {
  const RepetitionDeviceState low{reading(1700, 0), reading(1980, 0)};
  EXPECT_FALSE(slowed(low, 1980, 0.2)); // 14% under, within 20%
  EXPECT_TRUE(slowed(low, 1980, 0.1));
  EXPECT_EQ(slowed_because(low, 1980, 0.1), "SM clock 1700 MHz at the start, 14% under 1980");
  EXPECT_FALSE(slowed(low, 0, 0.1)); // no usual clock: judged by the reasons alone
  // An idle device's low clock (before the repetition's first call) is no slowdown, and is not
  // the lowest clock under load either.
  const RepetitionDeviceState idle{reading(345, clock_reason::gpu_idle), reading(1980, 0)};
  EXPECT_FALSE(slowed(idle, 1980, 0.1));
  EXPECT_EQ(lowest_sm_clock({idle, {reading(1965, 0), reading(1970, 0)}}), 1965.0);
  EXPECT_FALSE(lowest_sm_clock({{reading(345, 1), reading(300, 1)}}).has_value());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(slowed({reading(nan, 0), reading(nan, 0)}, 1980, 0.1)); // a clock not read
}

TEST(DeviceState, ReadingsRoundTripStayPairedWithTheirMediansAndAreChecked) {
  CaseResult first = make_result("a", {1.0, 1.2});
  first.timing.repetition_medians = {1.0, 1.2};
  first.timing.repetition_device_state = {{reading(1980, 0), reading(1965, 0)},
                                          {reading(1980, 0), reading(1410, 4)}};
  first.timing.device_slowed_repetitions = 1;
  first.timing.repetition_device_state[0].start.power_w = std::nan(""); // not given by NVML
  ResultSet set;
  set.cases.push_back(first);
  Json json = to_json(set);
  const Json& written = json["cases"][0]["timing"]["repetition_device_state"];
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written[1]["end"]["reasons"], Json::array({"sw_power_cap"}));
  EXPECT_EQ(written[1]["end"]["reason_bits"], 4);
  EXPECT_TRUE(written[0]["start"]["power_w"].is_null());
  const ResultSet back = result_set_from_json(json, "r.json");
  const auto& states = back.cases[0].timing.repetition_device_state;
  ASSERT_EQ(states.size(), 2u);
  EXPECT_DOUBLE_EQ(states[1].end.sm_clock_mhz, 1410);
  EXPECT_EQ(states[1].end.reasons, clock_reason::sw_power_cap);
  EXPECT_DOUBLE_EQ(states[1].start.temperature_c, 51);
  EXPECT_TRUE(std::isnan(states[0].start.power_w));
  EXPECT_EQ(back.cases[0].timing.device_slowed_repetitions, 1);

  // Combined over processes: concatenated, and the marks summed; a part without readings drops
  // them all rather than leave pairs that no longer match.
  CaseResult second = make_result("a", {0.9});
  second.timing.repetition_medians = {0.9};
  second.timing.repetition_device_state = {{reading(1980, 0), reading(1980, 0)}};
  second.timing.device_slowed_repetitions = 0;
  const CaseResult both = combine_repetitions({first, second});
  EXPECT_EQ(both.timing.repetition_device_state.size(), 3u);
  EXPECT_EQ(both.timing.device_slowed_repetitions, 1);
  CaseResult bare = make_result("a", {1.1});
  bare.timing.repetition_medians = {1.1};
  EXPECT_TRUE(combine_repetitions({first, bare}).timing.repetition_device_state.empty());

  // A file whose readings do not match its medians, or hold a bad reading, is refused.
  json["cases"][0]["timing"]["repetition_device_state"].push_back(written[0]);
  try {
    (void)result_set_from_json(json, "bad.json");
    FAIL() << "expected a ResultsError";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("timing.repetition_device_state has 3 entries"),
              std::string::npos)
        << e.what();
  }
  json["cases"][0]["timing"]["repetition_device_state"] =
      Json::array({{{"start", {{"reason_bits", -1}}}, {"end", Json::object()}}, Json::object()});
  EXPECT_THROW((void)result_set_from_json(json, "bad.json"), ResultsError);
}

} // namespace
} // namespace opbench::results
