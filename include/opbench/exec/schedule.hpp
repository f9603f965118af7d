#pragma once
// The order a run measures (case, repetition) jobs in, and which repetitions it measures again
// because the machine was slow while they ran.
//
// A shared machine has slow spells of seconds (seen here: a fixed integer loop 20-80% slower for
// 1-5 s at a time, with no steal time in /proc/stat), long enough to move every block of a case
// measured inside one. So each repetition is bracketed by a canary (exec/canary.hpp: a fixed
// loop on each of the case's threads); SpeedGate holds the fastest canary seen per thread count,
// and a repetition whose canary was more than `tolerance` slower is put back into the queue at a
// later, random place (Schedule::retry) instead of being kept, within a budget.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <vector>

namespace opbench::exec {

struct Job {
  std::size_t case_index = 0;
  int repetition = 0;  // 0-based
  int attempt = 0;     // 0 the first time; +1 per retry
};

class Schedule {
 public:
  // Every (case, repetition) pair, case by case, or shuffled with `seed` when `interleave`
  // (Fisher-Yates with mt19937_64, whose output the standard fixes: the same order everywhere).
  // A run may retry at most `max_retries` times per job and `retry_budget` x (number of jobs)
  // times in all, so a machine that stays slow costs at most that much more time.
  Schedule(std::size_t cases, int repetitions, bool interleave, std::uint64_t seed,
           int max_retries = 2, double retry_budget = 0.4);

  // The next job; false when none is left.
  bool next(Job& job);

  // Puts `job` back to run again later (a random place among the jobs left when interleaved,
  // else at the end); false when its retries or the run's budget are spent (keep it then).
  bool retry(const Job& job);

  // Drops the jobs left of case `case_index` (it failed or was skipped).
  void drop_case(std::size_t case_index);

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

// How `run --processes` splits a case's repetitions over fresh processes run one after another:
// the share of each (the first ones take one more when it does not divide), at least one
// repetition each, so never more processes than repetitions.
std::vector<int> split_repetitions(int repetitions, int processes);

// Whether the machine ran at full speed during a repetition, from its canary times (seconds)
// against the fastest canary seen for the same thread count.
class SpeedGate {
 public:
  explicit SpeedGate(double tolerance = 0.10) : m_tolerance(tolerance) {}

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

}  // namespace opbench::exec
