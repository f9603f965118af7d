#include "opbench/run/schedule.hpp"

#include "opbench/run/settings.hpp"

#include <algorithm>
#include <cmath>

#include "opbench/results/estimate.hpp"
#include "opbench/stats/statistics.hpp"

namespace opbench::run {

Schedule::Schedule(std::size_t cases, int repetitions, bool interleave, std::uint64_t seed,
                   int max_retries, double retry_budget)
    : m_random(seed), m_interleave(interleave), m_max_retries(max_retries) {
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < cases; ++i) {
    for (int r = 0; r < repetitions; ++r)
      jobs.push_back({i, r, 0});
  }
  if (interleave) {
    for (std::size_t i = jobs.size(); i > 1; --i)
      std::swap(jobs[i - 1], jobs[m_random() % i]);
  }
  m_jobs = jobs.size();
  m_retry_limit = static_cast<std::size_t>(std::floor(retry_budget * static_cast<double>(m_jobs)));
  m_queue.assign(jobs.begin(), jobs.end());
}

bool Schedule::next(Job& job) {
  if (m_queue.empty())
    return false;
  job = m_queue.front();
  m_queue.pop_front();
  return true;
}

bool Schedule::retry(const Job& job) {
  if (job.attempt >= m_max_retries || m_retries >= m_retry_limit)
    return false;
  ++m_retries;
  Job again = job;
  ++again.attempt;
  // Interleaved: anywhere among the jobs left (the end included), so the new attempt falls at
  // another moment of the run; case by case: at the end, after the slow spell has had time to
  // pass.
  const std::size_t place = m_interleave ? m_random() % (m_queue.size() + 1) : m_queue.size();
  m_queue.insert(m_queue.begin() + static_cast<std::ptrdiff_t>(place), again);
  return true;
}

void Schedule::drop_case(std::size_t case_index) {
  m_queue.erase(std::remove_if(m_queue.begin(), m_queue.end(),
                               [&](const Job& job) { return job.case_index == case_index; }),
                m_queue.end());
}

void Schedule::drop_job(std::size_t case_index, int repetition) {
  const auto it = std::find_if(m_queue.begin(), m_queue.end(), [&](const Job& job) {
    return job.case_index == case_index && job.repetition == repetition && job.attempt == 0;
  });
  if (it == m_queue.end())
    return;
  m_queue.erase(it);
  --m_jobs;
}

std::string DeviceClockGate::slowed(const std::string& device, const std::string& case_id,
                                    const results::RepetitionDeviceState& state) {
  double& highest = m_highest_by_case[case_id];
  for (const results::DeviceState* reading : {&state.start, &state.end}) {
    if (const auto clock = results::clock_under_load(*reading)) {
      highest = std::max(highest, *clock);
      m_highest[device] = std::max(m_highest[device], *clock);
    }
  }
  return results::slowed_because(state, highest, m_tolerance);
}

double SpeedGate::slowdown(int threads, double canary) {
  if (!(canary > 0))
    return 0;
  const auto it = m_fastest.find(threads);
  if (it == m_fastest.end() || canary < it->second) {
    m_fastest[threads] = canary;
    return 0;
  }
  return canary / it->second - 1.0;
}

void BandwidthReadings::add(const results::CaseResult& r) {
  if (r.timing.repetition_bandwidth.empty())
    return;
  auto& readings = m_by_threads[r.c.threads];
  for (const auto& pair : r.timing.repetition_bandwidth)
    readings.insert(readings.end(), pair.begin(), pair.end());
  m_known_levels.erase(r.c.threads);
}

double BandwidthReadings::usual(int threads, double tolerance) {
  const auto it = m_by_threads.find(threads);
  if (it == m_by_threads.end())
    return 0.0;
  const auto [known, first] = m_known_levels.emplace(threads, Level{tolerance, 0.0});
  if (first || known->second.tolerance != tolerance) {
    known->second = {tolerance, stats::usual_level(it->second, tolerance)};
  }
  return known->second.level;
}

bool BandwidthReadings::off_usual(const results::CaseResult& r, double tolerance) {
  if (!(tolerance > 0) || r.timing.repetition_bandwidth.empty())
    return false;
  const auto it = m_by_threads.find(r.c.threads);
  if (it == m_by_threads.end() || it->second.size() < k_min_readings)
    return false;
  const double level = usual(r.c.threads, tolerance);
  for (const auto& pair : r.timing.repetition_bandwidth) {
    for (double reading : pair) {
      if (!stats::is_usual(reading, level, tolerance))
        return true;
    }
  }
  return false;
}

void BandwidthReadings::apply(results::CaseResult& result, double tolerance) {
  if (!(tolerance > 0) || result.timing.repetition_bandwidth.empty())
    return;
  const results::SetAsideOutcome did =
      results::set_aside_unusual_bandwidth(result, usual(result.c.threads, tolerance), tolerance);
  m_set_aside += did.set_aside;
  if (did.set_aside > 0)
    ++m_cases_set_aside;
  if (did.all_unusual)
    ++m_cases_unusual;
}

Json BandwidthReadings::summary(double tolerance) const {
  const double band = tolerance > 0 ? tolerance : k_default_bandwidth_tolerance;
  Json levels = Json::object();
  for (const auto& [threads, readings] : m_by_threads) {
    const auto [low, high] = std::minmax_element(readings.begin(), readings.end());
    levels[std::to_string(threads)] = {{"usual", stats::usual_level(readings, band)},
                                       {"readings", readings.size()},
                                       {"lowest", *low},
                                       {"highest", *high}};
  }
  return {{"tolerance", tolerance},
          {"by_threads", levels},
          {"repetitions_measured_again", measured_again},
          {"repetitions_set_aside", m_set_aside},
          {"cases_set_aside", m_cases_set_aside},
          {"cases_at_unusual_bandwidth_only", m_cases_unusual}};
}

} // namespace opbench::run
