#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "opbench/machine/device_state.hpp"
#include "temp_dir.hpp"

namespace opbench::machine {
namespace {

// tests/support/fake_nvml.cpp: NVML's entry points answering from the environment.
const std::string k_fake = OPBENCH_FAKE_NVML;

std::string fake_bus_id(int index) {
  return index == 0 ? "00000000:3B:00.0" : "00000000:99:00.0";
}

struct FakeNvmlEnv : ::testing::Test {
  void SetUp() override {
    for (const char* name : {"FAKE_NVML_INIT", "FAKE_NVML_SM_MHZ", "FAKE_NVML_REASONS",
                             "FAKE_NVML_LOCK", "FAKE_NVML_LOG"})
      unsetenv(name);
  }
};

using DeviceStateNvml = FakeNvmlEnv;

TEST_F(DeviceStateNvml, WithoutTheDriversLibraryNothingIsReadAndItSaysWhy) {
  Nvml nvml("libnvidia-ml-absent.so.1", fake_bus_id);
  EXPECT_NE(nvml.unavailable().find("libnvidia-ml-absent.so.1"), std::string::npos)
      << nvml.unavailable();
  EXPECT_FALSE(nvml.read(0).has_value());
  const ClockLock lock = nvml.lock_clocks(0);
  EXPECT_FALSE(lock.locked);
  EXPECT_EQ(lock.said.rfind("not locked: ", 0), 0u) << lock.said;
}

#if OPBENCH_WITH_NVML_H
TEST_F(DeviceStateNvml, ReadsClocksReasonsAndTemperatureThroughTheLoadedLibrary) {
  setenv("FAKE_NVML_SM_MHZ", "1410", 1);
  setenv("FAKE_NVML_REASONS", "5", 1); // gpu_idle | sw_power_cap
  Nvml nvml(k_fake, fake_bus_id);
  ASSERT_EQ(nvml.unavailable(), "");
  const auto state = nvml.read(0);
  ASSERT_TRUE(state.has_value());
  EXPECT_DOUBLE_EQ(state->sm_clock_mhz, 1410);
  EXPECT_DOUBLE_EQ(state->memory_clock_mhz, 2619);
  EXPECT_EQ(state->reasons, results::clock_reason::gpu_idle | results::clock_reason::sw_power_cap);
  EXPECT_DOUBLE_EQ(state->temperature_c, 47);
  EXPECT_TRUE(std::isnan(state->power_w)); // not supported there: no number made up
  EXPECT_FALSE(nvml.read(1).has_value());  // no NVML device at that bus id
  // An NVML that does not start says so, with NVML's words.
  setenv("FAKE_NVML_INIT", "4", 1);
  Nvml refused(k_fake, fake_bus_id);
  EXPECT_EQ(refused.unavailable(), "nvmlInit_v2: NVML: Insufficient Permissions (4)");
  EXPECT_FALSE(refused.read(0).has_value());
}

TEST_F(DeviceStateNvml, LockClocksLocksAtTheBaseClockForTheRunOrSaysWhyNot) {
  testing::TempDir dir;
  const std::string log = dir.file("nvml.log");
  setenv("FAKE_NVML_LOG", log.c_str(), 1);
  Nvml nvml(k_fake, fake_bus_id);
  Json context = {{"cuda_devices", Json::array({{{"device", "cuda:0"}}})}};
  std::vector<std::string> notes;
  {
    const ClockLocks locks(true, context, notes, nvml);
    EXPECT_EQ(context["cuda_devices"][0]["clocks"],
              "SM clock locked at the base clock (NVML_CLOCK_LIMIT_ID_TDP)");
    EXPECT_EQ(notes, std::vector<std::string>{
                         "cuda:0: SM clock locked at the base clock (NVML_CLOCK_LIMIT_ID_TDP)"});
  } // the run is over: the driver's control is given back
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "lock 4294967041 4294967041\nreset 0 0\n"); // NVML_CLOCK_LIMIT_ID_TDP

  // Refused (not root): said in the context, nothing to give back.
  setenv("FAKE_NVML_LOCK", "4", 1);
  notes.clear();
  { const ClockLocks locks(true, context, notes, nvml); }
  EXPECT_EQ(context["cuda_devices"][0]["clocks"],
            "not locked: NVML: Insufficient Permissions (4) (locking clocks needs root, or the "
            "driver's permission for others)");
  // Not asked: the context says the clocks are the driver's.
  { const ClockLocks locks(false, context, notes, nvml); }
  EXPECT_EQ(context["cuda_devices"][0]["clocks"],
            "as the driver sets them (not locked; --lock-clocks locks them)");
  std::ifstream again(log);
  std::stringstream after;
  after << again.rdbuf();
  EXPECT_EQ(after.str(), "lock 4294967041 4294967041\nreset 0 0\n");
  // A run without a CUDA device.
  Json cpu = Json::object();
  notes.clear();
  { const ClockLocks locks(true, cpu, notes, nvml); }
  EXPECT_EQ(notes, std::vector<std::string>{"--lock-clocks: the run has no CUDA device; nothing "
                                            "locked"});
}
#endif

} // namespace
} // namespace opbench::machine
