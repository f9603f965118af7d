#pragma once
// The verdict on a case's time that `compare` (two files), the nightly gate (a night against the
// history) and `ab` (two builds side by side) give, and one count of verdicts for all of them:
// `slower` / `faster` only where the data showed the change (compare: significant and past the
// threshold; the gate: a confirmed candidate), `same` only where the data could have seen a
// change of the threshold's size, `unknown` everywhere else, saying why. Memory has its own
// verdict (memory_change.hpp), counted beside it.

#include <cstddef>
#include <ostream>
#include <string_view>
#include <utility>

#include "opbench/core/names.hpp"
#include "opbench/results/memory_change.hpp"

namespace opbench::results {

enum class Verdict { faster, slower, same, unknown };

// The verdict's name ("slower"), for messages and test output.
inline std::ostream& operator<<(std::ostream& out, Verdict verdict);

// How many cases got each verdict on their time and on their memory.
struct VerdictCounts {
  std::size_t faster = 0, slower = 0, same = 0, unknown = 0;
  std::size_t more_memory = 0, less_memory = 0, same_memory = 0, unknown_memory = 0;
  std::size_t cases = 0;

  void add(Verdict time, MemoryVerdict memory) {
    ++cases;
    (time == Verdict::faster   ? faster
     : time == Verdict::slower ? slower
     : time == Verdict::same   ? same
                               : unknown)++;
    (memory == MemoryVerdict::more   ? more_memory
     : memory == MemoryVerdict::less ? less_memory
     : memory == MemoryVerdict::same ? same_memory
                                     : unknown_memory)++;
  }
  std::size_t of(Verdict time) const {
    return time == Verdict::faster   ? faster
           : time == Verdict::slower ? slower
           : time == Verdict::same   ? same
                                     : unknown;
  }
  std::size_t of(MemoryVerdict memory) const {
    return memory == MemoryVerdict::more   ? more_memory
           : memory == MemoryVerdict::less ? less_memory
           : memory == MemoryVerdict::same ? same_memory
                                           : unknown_memory;
  }
  bool regressed() const { return slower > 0; }
  bool more_memory_seen() const { return more_memory > 0; }
  // No case was judged on its time: every one `unknown` (or none at all).
  bool nothing_judged() const { return unknown == cases; }
};

// The counts of `cases`, each with `.verdict` (Verdict) and `.memory.verdict` (MemoryVerdict).
template <typename Cases> VerdictCounts count_verdicts(const Cases& cases) {
  VerdictCounts counts;
  for (const auto& c : cases)
    counts.add(c.verdict, c.memory.verdict);
  return counts;
}

} // namespace opbench::results

namespace opbench::core {

template <> struct NameTable<results::Verdict> {
  static constexpr std::pair<results::Verdict, std::string_view> k_names[] = {
      {results::Verdict::faster, "faster"},
      {results::Verdict::slower, "slower"},
      {results::Verdict::same, "same"},
      {results::Verdict::unknown, "unknown"}};
};

} // namespace opbench::core

namespace opbench::results {

inline std::ostream& operator<<(std::ostream& out, Verdict verdict) {
  return out << core::name_of(verdict);
}

} // namespace opbench::results
