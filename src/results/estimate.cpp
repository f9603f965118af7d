#include "opbench/results/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::results {

const std::vector<std::string>& estimator_names() {
  static const std::vector<std::string> names{"min", "median", "fastest-third"};
  return names;
}

double estimate_with(const std::string& estimator, const std::vector<double>& repetition_medians) {
  if (estimator == "median")
    return stats::median_interval(repetition_medians, 0.95).median;
  if (estimator == "fastest-third") {
    std::vector<double> finite;
    for (double m : repetition_medians) {
      if (std::isfinite(m))
        finite.push_back(m);
    }
    if (finite.empty())
      return std::nan("");
    const std::size_t k = std::max<std::size_t>(1, finite.size() / 3);
    std::partial_sort(finite.begin(), finite.begin() + static_cast<std::ptrdiff_t>(k),
                      finite.end());
    double sum = 0;
    for (std::size_t i = 0; i < k; ++i)
      sum += finite[i];
    return sum / static_cast<double>(k);
  }
  if (estimator != "min") {
    throw Error("unknown estimator '" + estimator +
                "' (expected one of: " + core::join(estimator_names(), ", ") + ")");
  }
  double best = std::nan("");
  for (double m : repetition_medians) {
    if (std::isfinite(m) && !(m >= best))
      best = m;
  }
  return best;
}

Estimate estimate_of(const std::vector<double>& repetition_medians, const std::string& estimator,
                     const std::vector<int>& repetition_processes, double allowance) {
  const stats::MedianInterval interval = stats::median_interval(repetition_medians, 0.95);
  Estimate e;
  e.estimator = estimator;
  e.time = estimate_with(estimator, repetition_medians);
  e.repetitions = repetition_medians.size();
  e.median = interval.median;
  e.low = interval.low;
  e.high = interval.high;
  e.coverage = interval.coverage;
  e.spread = stats::relative_spread(repetition_medians);
  e.unstable = is_unstable(repetition_medians);
  e.interval = interval_of(e.time, repetition_medians, repetition_processes, allowance);
  return e;
}

namespace {
// The fastest and slowest of the finite positive medians; false when there are fewer than two.
bool extremes(const std::vector<double>& medians, double& fastest, double& slowest) {
  std::size_t n = 0;
  for (double m : medians) {
    if (!std::isfinite(m) || m <= 0)
      continue;
    fastest = n == 0 ? m : std::min(fastest, m);
    slowest = n == 0 ? m : std::max(slowest, m);
    ++n;
  }
  return n >= 2;
}
} // namespace

bool is_unstable(const std::vector<double>& repetition_medians) {
  double fastest = 0, slowest = 0;
  return extremes(repetition_medians, fastest, slowest) && slowest > k_unstable_ratio * fastest;
}

std::vector<std::size_t> disagreeing_repetitions(const std::vector<double>& repetition_medians) {
  if (!is_unstable(repetition_medians))
    return {};
  double fastest = 0, slowest = 0;
  extremes(repetition_medians, fastest, slowest);
  const double middle = std::sqrt(fastest * slowest);
  std::vector<std::size_t> slow;
  for (std::size_t i = 0; i < repetition_medians.size(); ++i) {
    const double m = repetition_medians[i];
    if (std::isfinite(m) && m >= middle)
      slow.push_back(i);
  }
  return slow;
}

namespace {

// Appends a part's per-repetition record (`from`, one entry per median of the part) to `into`;
// a part without one, or with another count, clears `paired`: the records no longer match the
// combined medians, and none is kept.
template <typename T>
void append_paired(std::vector<T>& into, const std::vector<T>& from, std::size_t medians_of_part,
                   bool& paired) {
  if (from.size() == medians_of_part)
    into.insert(into.end(), from.begin(), from.end());
  else
    paired = false;
}

} // namespace

CaseResult combine_repetitions(const std::vector<CaseResult>& repetitions,
                               const std::string& estimator) {
  if (repetitions.empty())
    throw Error("combine_repetitions: no repetition");
  CaseResult out = repetitions.front();
  if (out.status != results::Status::ok && repetitions.size() == 1)
    return out;
  out.samples.clear();
  out.timing.total_time = 0;
  out.timing.warmup_calls = 0;
  out.timing.discarded_blocks = 0;
  out.timing.interrupted_kept = 0;
  out.timing.retried_repetitions = 0;
  out.timing.spent = TimeSpent{};
  out.timing.canary = 0;
  out.timing.repetition_medians.clear();
  out.timing.cpu_times.clear();
  out.timing.batch_times.clear();
  out.timing.repetition_bandwidth.clear();
  out.timing.repetition_processes.clear();
  out.timing.repetition_device_state.clear();
  out.timing.device_slowed_repetitions = 0;
  out.timing.set_aside.clear();
  out.memory.reset();
  out.kernel_time.reset();
  // The bandwidth readings and the processes stay paired with the medians only if every part has
  // them.
  bool bandwidth_everywhere = true;
  bool processes_everywhere = true;
  bool device_state_everywhere = true;
  for (const auto& r : repetitions) {
    // A failure is the case's: the repetition that met it says which it was (run_loop.hpp names
    // it among the run's repetitions), a skip or a compiler's failure only why.
    if (r.status != results::Status::ok)
      return r;
    out.samples.insert(out.samples.end(), r.samples.begin(), r.samples.end());
    out.timing.total_time += r.timing.total_time;
    out.timing.warmup_calls += r.timing.warmup_calls;
    out.timing.discarded_blocks += r.timing.discarded_blocks;
    out.timing.interrupted_kept += r.timing.interrupted_kept;
    out.timing.retried_repetitions += r.timing.retried_repetitions;
    out.timing.spent += r.timing.spent;
    out.timing.canary = std::max(out.timing.canary, r.timing.canary);
    out.timing.block_size = std::max(out.timing.block_size, r.timing.block_size);
    // A part measured in another process brings all of its repetitions' medians.
    if (r.timing.repetition_medians.empty()) {
      out.timing.repetition_medians.push_back(r.summary.median);
    } else {
      out.timing.repetition_medians.insert(out.timing.repetition_medians.end(),
                                           r.timing.repetition_medians.begin(),
                                           r.timing.repetition_medians.end());
    }
    const std::size_t medians_of_part =
        std::max<std::size_t>(1, r.timing.repetition_medians.size());
    append_paired(out.timing.repetition_bandwidth, r.timing.repetition_bandwidth, medians_of_part,
                  bandwidth_everywhere);
    append_paired(out.timing.repetition_processes, r.timing.repetition_processes, medians_of_part,
                  processes_everywhere);
    append_paired(out.timing.repetition_device_state, r.timing.repetition_device_state,
                  medians_of_part, device_state_everywhere);
    out.timing.device_slowed_repetitions += r.timing.device_slowed_repetitions;
    out.timing.set_aside.insert(out.timing.set_aside.end(), r.timing.set_aside.begin(),
                                r.timing.set_aside.end());
    out.timing.cpu_times.insert(out.timing.cpu_times.end(), r.timing.cpu_times.begin(),
                                r.timing.cpu_times.end());
    out.timing.batch_times.insert(out.timing.batch_times.end(), r.timing.batch_times.begin(),
                                  r.timing.batch_times.end());
    if (!out.memory && r.memory)
      out.memory = r.memory;
    if (!out.kernel_time && r.kernel_time)
      out.kernel_time = r.kernel_time;
    if (out.trace.empty())
      out.trace = r.trace;
    if (r.check && &r != &repetitions.front()) {
      if (!out.check)
        out.check = r.check;
      else
        out.check->add(*r.check);
    }
    // The checked repetition's (the first one's) stage figures.
    if (r.stage_info && (!out.stage_info || out.stage_info->tolerance.empty()))
      out.stage_info = r.stage_info;
    // The compile time of the repetition that compiled (the others loaded its package).
    if (out.stage_info && r.stage_info && r.stage_info->compile_time &&
        !r.stage_info->compile_cached) {
      out.stage_info->compile_time = r.stage_info->compile_time;
      out.stage_info->compile_cached = false;
    }
    // The work is the first repetition's, the one that recorded the ATen calls (a repetition
    // measured again may come back after later ones).
    if (!out.work.aten_calls && r.work.aten_calls)
      out.work = r.work;
  }
  if (!bandwidth_everywhere)
    out.timing.repetition_bandwidth.clear();
  if (!processes_everywhere)
    out.timing.repetition_processes.clear();
  if (!device_state_everywhere)
    out.timing.repetition_device_state.clear();
  out.summary = stats::summarize(out.samples);
  out.estimate =
      estimate_of(out.timing.repetition_medians, estimator, out.timing.repetition_processes);
  // The noise each repetition's stopping rule aimed at is its own blocks' cv: the typical
  // (median) repetition's is the case's. The pooled samples' cv would add the differences
  // between repetitions, which no repetition can stop on (they are estimate.spread), and so
  // miss the target in nearly every case.
  // A part of several repetitions counts once per repetition (its noise is already its typical
  // one).
  std::vector<double> noises;
  for (const auto& r : repetitions) {
    noises.insert(noises.end(), std::max<std::size_t>(1, r.timing.repetition_medians.size()),
                  r.timing.noise);
  }
  out.timing.noise = stats::median(noises);
  out.timing.noise_reached = out.timing.noise <= out.timing.target_noise;
  return out;
}

SetAsideOutcome set_aside_unusual_bandwidth(CaseResult& result, double usual, double tolerance) {
  TimingInfo& t = result.timing;
  SetAsideOutcome outcome;
  if (result.status != results::Status::ok || !(usual > 0) || t.repetition_bandwidth.empty() ||
      t.repetition_bandwidth.size() != t.repetition_medians.size()) {
    return outcome;
  }
  t.usual_bandwidth = usual;
  auto usual_pair = [&](const std::array<double, 2>& b) {
    return stats::is_usual(b[0], usual, tolerance) && stats::is_usual(b[1], usual, tolerance);
  };
  if (std::none_of(t.repetition_bandwidth.begin(), t.repetition_bandwidth.end(), usual_pair)) {
    std::vector<double> readings;
    for (const auto& b : t.repetition_bandwidth)
      readings.insert(readings.end(), b.begin(), b.end());
    const auto [low, high] = std::minmax_element(readings.begin(), readings.end());
    const std::string note = fmt::format("every repetition ran at an unusual memory bandwidth "
                                         "({:.0f}-{:.0f} GB/s against the run's usual {:.0f} GB/s)",
                                         *low / 1e9, *high / 1e9, usual / 1e9);
    result.message = result.message.empty() ? note : result.message + "; " + note;
    outcome.all_unusual = true;
    return outcome;
  }
  std::vector<double> kept;
  std::vector<std::array<double, 2>> kept_bandwidth;
  std::vector<int> kept_processes;
  std::vector<RepetitionDeviceState> kept_states;
  const bool processes = t.repetition_processes.size() == t.repetition_medians.size();
  const bool states = t.repetition_device_state.size() == t.repetition_medians.size();
  for (std::size_t i = 0; i < t.repetition_medians.size(); ++i) {
    if (usual_pair(t.repetition_bandwidth[i])) {
      kept.push_back(t.repetition_medians[i]);
      kept_bandwidth.push_back(t.repetition_bandwidth[i]);
      if (processes)
        kept_processes.push_back(t.repetition_processes[i]);
      if (states)
        kept_states.push_back(t.repetition_device_state[i]);
    } else {
      t.set_aside.push_back({t.repetition_medians[i], t.repetition_bandwidth[i], i});
      ++outcome.set_aside;
    }
  }
  t.repetition_medians = std::move(kept);
  t.repetition_bandwidth = std::move(kept_bandwidth);
  t.repetition_processes = std::move(kept_processes);
  t.repetition_device_state = std::move(kept_states);
  result.estimate = estimate_of(t.repetition_medians, result.estimate.estimator,
                                t.repetition_processes, allowance_of(result.estimate.interval));
  return outcome;
}

double uncertainty(const CaseResult& result) {
  std::vector<double> m;
  for (double v : result.timing.repetition_medians) {
    if (std::isfinite(v) && v > 0)
      m.push_back(v);
  }
  if (m.size() < 2)
    return std::numeric_limits<double>::quiet_NaN();
  if (result.estimate.estimator == "median") {
    const Estimate& e = result.estimate;
    return e.median > 0 ? (e.high - e.low) / 2.0 / e.median
                        : std::numeric_limits<double>::quiet_NaN();
  }
  std::sort(m.begin(), m.end());
  const std::size_t taken = result.estimate.estimator == "min" ? 1 : m.size() / 3;
  const std::size_t k = std::min(m.size(), std::max<std::size_t>(2, taken));
  return (m[k - 1] - m[0]) / m[0];
}

bool noisy(const CaseResult& result) {
  if (result.status != results::Status::ok)
    return false;
  const double u = uncertainty(result);
  if (std::isfinite(u))
    return u > k_noisy_uncertainty;
  return result.timing.noise > std::max(k_noisy_cv, result.timing.target_noise);
}

std::vector<int> split_repetitions(int repetitions, int processes) {
  const int n = std::max(1, std::min(processes, repetitions));
  std::vector<int> shares;
  for (int k = 0; k < n; ++k)
    shares.push_back(repetitions / n + (k < repetitions % n ? 1 : 0));
  return shares;
}

} // namespace opbench::results
