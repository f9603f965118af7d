#pragma once
// The order a run measures (case, repetition) jobs in, and which repetitions it measures again
// because the machine was slow while they ran (SpeedGate) or, for a memory-bound case, streamed
// at a bandwidth off the run's usual one (BandwidthReadings, which also sets such ones aside).
//
// A shared machine has slow spells of seconds (docs/reproducibility-log.md, "The canaries"), long
// enough to move every block of a case measured inside one. So each repetition is bracketed by a
// canary (machine/canary.hpp: a fixed loop on the calling thread); SpeedGate holds the fastest
// canary seen per thread count, and a repetition whose canary was more than `tolerance` slower is
// put back into the queue at a later, random place (Schedule::retry) instead of being kept, within
// a budget.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/results/device_state.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/result_set.hpp"

namespace opbench::run {

struct Job {
  std::size_t case_index = 0;
  int repetition = 0; // 0-based
  int attempt = 0;    // 0 the first time; +1 per retry
};

class Schedule {
public:
  // The share of a run's jobs that may be measured again, at most (`run --retries` help says so).
  static constexpr double k_retry_budget = 0.4;

  // Every (case, repetition) pair, case by case, or shuffled with `seed` when `interleave`
  // (Fisher-Yates with mt19937_64, whose output the standard fixes: the same order everywhere).
  // A run may retry at most `max_retries` times per job and `retry_budget` x (number of jobs)
  // times in all, so a machine that stays slow costs at most that much more time.
  Schedule(std::size_t cases, int repetitions, bool interleave, std::uint64_t seed, int max_retries,
           double retry_budget = k_retry_budget);

  // The next job; false when none is left.
  bool next(Job& job);

  // Puts `job` back to run again later (a random place among the jobs left when interleaved,
  // else at the end); false when its retries or the run's budget are spent (keep it then).
  bool retry(const Job& job);

  // Drops the jobs left of case `case_index` (it failed or was skipped).
  void drop_case(std::size_t case_index);

  // Drops repetition `repetition` of case `case_index` before the run starts (a process that died
  // kept it already: processes.hpp's Resume); it no longer counts as a job.
  void drop_job(std::size_t case_index, int repetition);

  std::size_t jobs() const { return m_jobs; }
  std::size_t retries() const { return m_retries; }

private:
  std::deque<Job> m_queue;
  std::mt19937_64 m_random;
  bool m_interleave;
  int m_max_retries;
  std::size_t m_jobs;
  std::size_t m_retry_limit;
  std::size_t m_retries = 0;
};

// Whether the machine ran at full speed during a repetition, from its canary times (seconds)
// against the fastest canary seen for the same thread count.
class SpeedGate {
public:
  explicit SpeedGate(double tolerance) : m_tolerance(tolerance) {}

  // Records `canary` for `threads` and says how much slower than the fastest so far it is
  // (canary / fastest - 1; 0 for a new fastest). Non-positive canaries (none taken) are 0.
  double slowdown(int threads, double canary);

  // True when `slowdown` is past the tolerance.
  bool disturbed(double slowdown) const { return slowdown > m_tolerance; }

  double tolerance() const { return m_tolerance; }
  // The fastest canary per thread count [s].
  const std::map<int, double>& fastest() const { return m_fastest; }

private:
  double m_tolerance;
  std::map<int, double> m_fastest;
};

// SpeedGate's counterpart on a CUDA device, from the device's state at both ends of a repetition
// (results/device_state.hpp, read through NVML): a repetition ran slowed when the driver gave a
// slowdown reason (thermal, the hardware's, the power brake) or the SM clock, not idle, lay more
// than `tolerance` under the highest its case's repetitions have read in the run. Such a repetition
// is measured again like a slow spell's, and marked (TimingInfo::device_slowed_repetitions) when it
// is kept anyway.
class DeviceClockGate {
public:
  explicit DeviceClockGate(double tolerance) : m_tolerance(tolerance) {}

  // Takes the readings of one repetition of case `case_id` on `device` ("cuda:0") and says why it
  // ran slowed (results::slowed_because, against the highest SM clock of the case's repetitions
  // so far, its own included: a large kernel holds a lower clock than a small one on the same
  // device, under its power cap, in every repetition); empty when it did not.
  std::string slowed(const std::string& device, const std::string& case_id,
                     const results::RepetitionDeviceState& state);

  // The highest SM clock seen per device [MHz].
  const std::map<std::string, double>& highest() const { return m_highest; }

private:
  double m_tolerance;
  std::map<std::string, double> m_highest;         // by device
  std::map<std::string, double> m_highest_by_case; // by case id
};

// The memory canary's readings of a run (machine/canary.hpp), per thread count, and the run's usual
// bandwidth among them: the memory-bound cases' estimates use only the repetitions measured at it.
// How fast the host lets a case stream from memory moves from moment to moment (machine/canary.hpp;
// the readings are in docs/reproducibility-log.md, "The canaries"). SpeedGate's counterpart for
// memory-bound repetitions: `run` measures again a
// repetition off the usual level so far (off_usual) and, once a case is done, sets aside those
// still off it (apply); with --processes the parent does both on the whole run's readings.
class BandwidthReadings {
public:
  // Readings at a thread count before a repetition can be judged off the usual level so far: a
  // process's first few memory-bound repetitions set the level, none is measured again for it.
  static constexpr std::size_t k_min_readings = 20;

  // Takes the memory canary's readings of a repetition (or of a combined case), if it has any.
  void add(const results::CaseResult& r);
  // The usual level of the readings so far at `threads` (stats::usual_level; 0 without any),
  // worked out again only after new readings came.
  double usual(int threads, double tolerance);
  // Whether repetition `r` ran at a memory bandwidth off the usual level of the readings so far
  // (either reading), once there are k_min_readings of them; false with tolerance 0 or no readings.
  bool off_usual(const results::CaseResult& r, double tolerance);
  // Sets aside `result`'s repetitions measured at an unusual bandwidth (none with tolerance 0)
  // (results::set_aside_unusual_bandwidth) and counts them.
  void apply(results::CaseResult& result, double tolerance);
  // The run's summary.memory_bandwidth: per thread count the usual level (with tolerance 0,
  // nothing is set aside but the level is still told, in the default band), the number of
  // readings, the lowest and highest; and the counts.
  Json summary(double tolerance) const;

  bool empty() const { return m_by_threads.empty(); }
  std::size_t set_aside() const { return m_set_aside; }
  std::size_t cases_set_aside() const { return m_cases_set_aside; }

  std::size_t measured_again =
      0; // repetitions measured again for it (off_usual), counted by the run

private:
  struct Level {
    double tolerance;
    double level;
  };
  std::map<int, std::vector<double>> m_by_threads;
  std::map<int, Level> m_known_levels; // usual(): per thread count, until new readings come
  std::size_t m_set_aside = 0;         // repetitions set aside
  std::size_t m_cases_set_aside = 0;   // cases with one or more
  std::size_t m_cases_unusual = 0;     // cases measured at an unusual bandwidth only
};

} // namespace opbench::run
