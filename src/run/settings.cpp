#include "opbench/run/settings.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "opbench/core/error.hpp"
#include "opbench/core/names.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/results/estimate.hpp"

namespace opbench::run {

bool in_range(double value, const Range& range) {
  return std::isfinite(value) && value >= range.low && value <= range.high &&
         (!range.integer || std::trunc(value) == value);
}

std::string describe(const Range& range) {
  std::ostringstream out;
  out << (range.integer ? "a whole number from " : "a number from ") << range.low << " to "
      << range.high;
  return out.str();
}

std::optional<double> parse_in_range(const std::string& text, const Range& range) {
  const std::string trimmed = core::trim(text);
  if (trimmed.empty())
    return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(trimmed.c_str(), &end);
  if (end != trimmed.c_str() + trimmed.size() || errno == ERANGE || !in_range(value, range))
    return std::nullopt;
  return value;
}

std::optional<std::uint64_t> parse_seed(const std::string& text) {
  const std::string trimmed = core::trim(text);
  if (trimmed.empty() || trimmed.size() > 20 ||
      !std::all_of(trimmed.begin(), trimmed.end(),
                   [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return std::nullopt;
  }
  errno = 0;
  const unsigned long long value = std::strtoull(trimmed.c_str(), nullptr, 10);
  if (errno == ERANGE)
    return std::nullopt;
  return static_cast<std::uint64_t>(value);
}

namespace {

void require(double value, const Range& range, const char* option) {
  if (!in_range(value, range)) {
    std::ostringstream got;
    got << value;
    throw UsageError(std::string(option) + " must be " + describe(range) + ", got " + got.str());
  }
}

} // namespace

void check(const RunSettings& settings) {
  const auto& m = settings.exec.measure;
  require(m.warmup, limits::warmup, "--warmup");
  require(m.min_runs, limits::runs, "--runs");
  require(m.min_time, limits::min_time, "--min-time");
  require(m.max_time, limits::max_time, "--max-time");
  require(m.target_noise, limits::target_noise, "--target-noise");
  require(m.warm_tolerance, limits::warm_tolerance, "--warm-tolerance");
  require(m.block_time, limits::block_time, "--block-time");
  require(settings.repetitions, limits::repetitions, "--repetitions");
  require(settings.processes, limits::processes, "--processes");
  require(settings.min_processes, limits::processes, "--min-processes");
  require(settings.interval_target, limits::interval_target, "--interval-target");
  require(settings.placement, limits::placement, "--placement");
  require(settings.process_warmup, limits::process_warmup, "--process-warmup");
  require(settings.retries, limits::retries, "--retries");
  require(settings.slow_tolerance, limits::slow_tolerance, "--slow-tolerance");
  require(settings.bandwidth_tolerance, limits::bandwidth_tolerance, "--bandwidth-tolerance");
  require(settings.case_timeout, limits::case_timeout, "--case-timeout");
}

double case_timeout_seconds(const RunSettings& settings) {
  if (settings.case_timeout > 0)
    return settings.case_timeout;
  return std::max(k_case_timeout_floor,
                  k_case_timeout_per_max_time * settings.exec.measure.max_time);
}

Json measuring_json(const RunSettings& settings, int processes) {
  const auto& m = settings.exec.measure;
  Json out = {{"warmup", m.warmup},
              {"runs", m.min_runs},
              {"min_time", m.min_time},
              {"max_time", m.max_time},
              {"target_noise", m.target_noise},
              {"warm_tolerance", m.warm_tolerance},
              {"block_time", m.block_time},
              {"timer", core::name_of(settings.exec.timer)},
              {"cold", settings.exec.cold},
              {"seed", settings.seed},
              {"repetitions", settings.repetitions},
              {"estimator", settings.estimator},
              {"interleave", settings.interleave},
              {"isolate", settings.isolate},
              {"processes", processes},
              {"process_warmup", settings.process_warmup},
              {"retries", settings.retries},
              {"slow_tolerance", settings.slow_tolerance},
              {"bandwidth_tolerance", settings.bandwidth_tolerance},
              {"host_allocator", settings.host_allocator}};
  // Recorded only when on: files from before it have none, and two runs that differ in it alone
  // differ in what their CUDA times mean (results::measuring_differences).
  if (settings.lock_clocks)
    out["lock_clocks"] = true;
  return out;
}

double estimated_seconds(std::size_t cases, const RunSettings& settings) {
  const double repetitions = static_cast<double>(cases) * settings.repetitions;
  const double per_repetition =
      k_repetition_fixed +
      std::max(settings.exec.measure.min_time, k_timed_share * settings.exec.measure.max_time);
  // Every run measures in fresh processes: one at least.
  const double processes =
      settings.isolate ? repetitions
                       : static_cast<double>(std::min(settings.processes, settings.repetitions));
  return repetitions * per_repetition + processes * k_process_start;
}

int processes_before_stopping(const RunSettings& settings, int shares) {
  if (settings.interval_target <= 0)
    return shares;
  return std::max(1, std::min(settings.min_processes, shares));
}

double estimated_seconds_at_least(std::size_t cases, const RunSettings& settings) {
  if (settings.isolate)
    return estimated_seconds(cases, settings);
  const std::vector<int> shares =
      results::split_repetitions(settings.repetitions, settings.processes);
  const int before = processes_before_stopping(settings, static_cast<int>(shares.size()));
  RunSettings least = settings;
  least.repetitions = 0;
  for (int k = 0; k < before; ++k)
    least.repetitions += shares[static_cast<std::size_t>(k)];
  least.processes = before;
  return estimated_seconds(cases, least);
}

std::vector<std::string> measuring_args(const RunSettings& options) {
  const auto& m = options.exec.measure;
  std::vector<std::string> args = {"--warmup",         std::to_string(m.warmup),
                                   "--runs",           std::to_string(m.min_runs),
                                   "--min-time",       fmt::format("{}", m.min_time),
                                   "--max-time",       fmt::format("{}", m.max_time),
                                   "--target-noise",   fmt::format("{}", m.target_noise),
                                   "--block-time",     fmt::format("{}", m.block_time),
                                   "--host-allocator", options.host_allocator,
                                   "--timer",          core::name_of(options.exec.timer),
                                   "--estimator",      options.estimator,
                                   "--process-warmup", fmt::format("{}", options.process_warmup)};
  // Flags newer than a side of `opbench ab` may be go only where set away from their defaults: a
  // side that is an older build, which knows none of them, then starts and measures its own way,
  // as it would alone.
  if (m.warm_tolerance != measure::MeasureOptions{}.warm_tolerance)
    args.insert(args.end(), {"--warm-tolerance", fmt::format("{}", m.warm_tolerance)});
  if (options.exec.cold)
    args.emplace_back("--cold");
  if (options.exec.kernel_time)
    args.emplace_back("--kernel-time");
  for (const std::string& library : options.libraries)
    args.insert(args.end(), {"--load-library", library});
  return args;
}

} // namespace opbench::run
