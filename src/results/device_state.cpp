#include "opbench/results/device_state.hpp"

#include <fmt/format.h>

#include <cmath>

#include "opbench/core/error.hpp"
#include "result_fields.hpp"

namespace opbench::results {
namespace {

struct ReasonName {
  std::uint64_t bit;
  const char* name;
};
constexpr ReasonName k_reason_names[] = {
    {clock_reason::gpu_idle, "gpu_idle"},
    {clock_reason::applications_clocks_setting, "applications_clocks_setting"},
    {clock_reason::sw_power_cap, "sw_power_cap"},
    {clock_reason::hw_slowdown, "hw_slowdown"},
    {clock_reason::sync_boost, "sync_boost"},
    {clock_reason::sw_thermal_slowdown, "sw_thermal_slowdown"},
    {clock_reason::hw_thermal_slowdown, "hw_thermal_slowdown"},
    {clock_reason::hw_power_brake_slowdown, "hw_power_brake_slowdown"},
    {clock_reason::display_clock_setting, "display_clock_setting"},
};

// How far `clock` (under load) lies under `usual`, as a fraction (0 when not under it, or no
// usual clock).
double shortfall(double clock, double usual) {
  return usual > 0 ? std::max(0.0, 1.0 - clock / usual) : 0.0;
}

} // namespace

std::optional<double> clock_under_load(const DeviceState& reading) {
  const double clock = reading.sm_clock_mhz;
  if ((reading.reasons & clock_reason::gpu_idle) || !std::isfinite(clock) || !(clock > 0))
    return std::nullopt;
  return clock;
}

std::vector<std::string> clock_reason_names(std::uint64_t reasons) {
  std::vector<std::string> out;
  for (int bit = 0; bit < 64; ++bit) {
    const std::uint64_t mask = std::uint64_t{1} << bit;
    if (!(reasons & mask))
      continue;
    const char* name = nullptr;
    for (const auto& known : k_reason_names) {
      if (known.bit == mask)
        name = known.name;
    }
    out.push_back(name ? std::string(name) : fmt::format("{:#x}", mask));
  }
  return out;
}

std::string slowed_because(const RepetitionDeviceState& state, double usual_sm_clock_mhz,
                           double tolerance) {
  std::vector<std::string> why;
  const std::pair<const char*, const DeviceState*> ends[] = {{"start", &state.start},
                                                             {"end", &state.end}};
  for (const auto& [at, reading] : ends) {
    if (const std::uint64_t slow = reading->reasons & clock_reason::slowdowns) {
      std::string names;
      for (const auto& name : clock_reason_names(slow))
        names += (names.empty() ? "" : "+") + name;
      why.push_back(fmt::format("{} at the {}", names, at));
    }
    const auto clock = clock_under_load(*reading);
    const double under = clock ? shortfall(*clock, usual_sm_clock_mhz) : 0.0;
    if (under > tolerance) {
      why.push_back(fmt::format("SM clock {:.0f} MHz at the {}, {:.0f}% under {:.0f}",
                                reading->sm_clock_mhz, at, under * 100, usual_sm_clock_mhz));
    }
  }
  std::string out;
  for (const auto& w : why)
    out += (out.empty() ? "" : "; ") + w;
  return out;
}

bool slowed(const RepetitionDeviceState& state, double usual_sm_clock_mhz, double tolerance) {
  return !slowed_because(state, usual_sm_clock_mhz, tolerance).empty();
}

std::optional<double> lowest_sm_clock(const std::vector<RepetitionDeviceState>& states) {
  std::optional<double> lowest;
  for (const auto& r : states) {
    for (const DeviceState* reading : {&r.start, &r.end}) {
      const auto clock = clock_under_load(*reading);
      if (clock && (!lowest || *clock < *lowest))
        lowest = clock;
    }
  }
  return lowest;
}

Json to_json(const DeviceState& state) {
  return {{"sm_clock_mhz", number(state.sm_clock_mhz)},
          {"memory_clock_mhz", number(state.memory_clock_mhz)},
          {"reasons", clock_reason_names(state.reasons)},
          {"reason_bits", state.reasons},
          {"temperature_c", number(state.temperature_c)},
          {"power_w", number(state.power_w)}};
}

DeviceState device_state_from_json(const Json& json, const std::string& where) {
  if (!json.is_object())
    throw ResultsError(where + ": a device state reading must be an object, got " + json.dump());
  DeviceState state;
  state.sm_clock_mhz = read_number(json, "sm_clock_mhz");
  state.memory_clock_mhz = read_number(json, "memory_clock_mhz");
  state.temperature_c = read_number(json, "temperature_c");
  state.power_w = read_number(json, "power_w");
  if (json.contains("reason_bits")) {
    if (!json["reason_bits"].is_number_unsigned())
      throw ResultsError(where +
                         ": reason_bits must be a whole number from 0 (NVML's clock "
                         "event reasons), got " +
                         json["reason_bits"].dump());
    state.reasons = json["reason_bits"].get<std::uint64_t>();
  }
  return state;
}

} // namespace opbench::results
