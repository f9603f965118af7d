#pragma once
// A CUDA device's state while a repetition ran: its clocks, why the driver held them down,
// its temperature and power, read through NVML (machine/device_state.hpp) at the start and the
// end of each repetition of a CUDA case. A number timed while the device ran throttled is a
// wrong number with no mark: the run measures such a repetition again (run/schedule.hpp's
// DeviceClockGate) and marks the ones it keeps (docs/cuda.md, "The device's state").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"

namespace opbench::results {

// NVML's clock event reasons (nvml.h's nvmlClocksEventReason*: the bit values are NVML's, and
// src/machine/device_state.cpp checks them against the header where it is built with it).
namespace clock_reason {
constexpr std::uint64_t gpu_idle = 0x1;
constexpr std::uint64_t applications_clocks_setting = 0x2;
constexpr std::uint64_t sw_power_cap = 0x4;
constexpr std::uint64_t hw_slowdown = 0x8;
constexpr std::uint64_t sync_boost = 0x10;
constexpr std::uint64_t sw_thermal_slowdown = 0x20;
constexpr std::uint64_t hw_thermal_slowdown = 0x40;
constexpr std::uint64_t hw_power_brake_slowdown = 0x80;
constexpr std::uint64_t display_clock_setting = 0x100;
// The reasons that slow the device below what it sustains: thermal and the hardware's slowdowns
// and the power brake. The software power cap is left to the clock: a large kernel runs power
// capped in every repetition, at its own steady clock (a clock under that is judged, below).
// Idle, the application clocks, sync boost and the display's setting are settings or states.
constexpr std::uint64_t slowdowns =
    hw_slowdown | sw_thermal_slowdown | hw_thermal_slowdown | hw_power_brake_slowdown;
} // namespace clock_reason

// One reading. A value NVML did not give (not supported on that device) is NaN; `reasons` is
// 0 when none was read.
struct DeviceState {
  double sm_clock_mhz = 0;
  double memory_clock_mhz = 0;
  std::uint64_t reasons = 0; // clock_reason bits
  double temperature_c = 0;
  double power_w = 0;
};

// Readings at the start and at the end of one repetition.
struct RepetitionDeviceState {
  DeviceState start;
  DeviceState end;
};

// A reading's SM clock under load [MHz]: nullopt when it was not read, or the reading is marked
// gpu_idle (an idle device lowers its clock: that says nothing of the clock under load). The
// one clock slowed(), lowest_sm_clock() and the run's DeviceClockGate judge.
std::optional<double> clock_under_load(const DeviceState& reading);

// NVML's names of the set bits ("sw_power_cap", "hw_thermal_slowdown", ...; "0x..." for a bit
// NVML added after this list), in bit order.
std::vector<std::string> clock_reason_names(std::uint64_t reasons);

// Whether the device was slowed at either reading: a slowdown reason, or an SM clock more than
// `tolerance` below `usual_sm_clock_mhz` (the highest the run has seen for the case; 0: not
// judged by the clock) in a reading not marked gpu_idle (an idle device lowers its clock).
bool slowed(const RepetitionDeviceState& state, double usual_sm_clock_mhz, double tolerance);
// Why, in words, for the log and the case's message ("hw_slowdown at the end", "SM clock 1410
// MHz, 24% under 1980"); empty when not slowed.
std::string slowed_because(const RepetitionDeviceState& state, double usual_sm_clock_mhz,
                           double tolerance);

// The lowest SM clock read at either end of any of `states` while not idle [MHz]; nullopt when
// none was (what the history keeps of a case's device state, and the gate compares).
std::optional<double> lowest_sm_clock(const std::vector<RepetitionDeviceState>& states);

// The result file's form: {"sm_clock_mhz", "memory_clock_mhz", "reasons": [names],
// "reason_bits", "temperature_c", "power_w"} (NaN as null), and back; `where` names the file and
// case in the error a malformed reading throws (ResultsError).
Json to_json(const DeviceState& state);
DeviceState device_state_from_json(const Json& json, const std::string& where);

} // namespace opbench::results
