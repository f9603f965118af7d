#include "notes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "opbench/core/strings.hpp"
#include "opbench/results/setup_difference.hpp"

namespace opbench::compare::detail {

void note_setup_differences(const Json& base, const Json& candidate,
                            std::vector<std::string>& notes) {
  if (std::string note = results::setup_difference(base, candidate); !note.empty())
    notes.push_back(std::move(note));
}

// A note when cases were called another way in NEW than in BASE (timing.call_path: "boxed" or
// "typed", typed_call.hpp): the boxed call unpacks its arguments on every call, up to a quarter of
// a view's time, so such a case's ratio is the call path's change as much as the code's.
void note_call_path_differences(const std::map<std::string, std::vector<std::string>>& changed,
                                std::vector<std::string>& notes) {
  for (const auto& [paths, ids] : changed) {
    std::vector<std::string> shown(
        ids.begin(),
        ids.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(ids.size(), 3)));
    notes.push_back(std::to_string(ids.size()) + " case(s) called another way (" + paths + "; " +
                    core::join(shown, ", ") + (ids.size() > shown.size() ? ", ..." : "") +
                    "): the boxed call unpacks its arguments on every call, so their ratios carry "
                    "that as well as the code's change");
  }
}

// A note when the host gave the two runs a different usual memory bandwidth (run's summary
// memory_bandwidth, from the memory canary): the memory-bound cases' ratios then follow the host.
void note_bandwidth_difference(const Json& base, const Json& candidate,
                               std::vector<std::string>& notes) {
  auto levels = [](const Json& summary) {
    std::map<std::string, std::pair<double, double>> out; // threads -> (usual, tolerance)
    if (!summary.is_object() || !summary.contains("memory_bandwidth"))
      return out;
    const Json& m = summary["memory_bandwidth"];
    const double tolerance = m.value("tolerance", 0.2);
    const Json by_threads = m.value("by_threads", Json::object());
    for (const auto& [threads, level] : by_threads.items()) {
      if (level.contains("usual") && level["usual"].is_number())
        out[threads] = {level["usual"].get<double>(), tolerance};
    }
    return out;
  };
  const auto a = levels(base), b = levels(candidate);
  std::vector<std::string> differing;
  for (const auto& [threads, level] : a) {
    const auto it = b.find(threads);
    if (it == b.end() || !(level.first > 0) || !(it->second.first > 0))
      continue;
    const double tolerance = std::max(level.second, it->second.second);
    if (stats::is_usual(it->second.first, level.first, tolerance))
      continue;
    differing.push_back(fmt::format("{} thread(s): {:.1f} GB/s in BASE, {:.1f} GB/s in NEW",
                                    threads, level.first / 1e9, it->second.first / 1e9));
  }
  if (differing.empty())
    return;
  notes.push_back(
      "the host gave the two runs a different usual memory bandwidth (" +
      core::join(differing, "; ") +
      ", memory canary): the ratios of memory-bound cases follow it as much as the code");
}

// A run's fastest speed canary per thread count (summary.slow_spells.fastest_canary_by_threads,
// keyed as the case's `threads`), in seconds; empty for files that have none.
std::map<std::string, double> fastest_canaries(const Json& summary) {
  std::map<std::string, double> out;
  if (!summary.is_object() || !summary.contains("slow_spells") ||
      !summary["slow_spells"].is_object())
    return out;
  const Json by_threads = summary["slow_spells"].value("fastest_canary_by_threads", Json::object());
  if (!by_threads.is_object())
    return out;
  for (const auto& [threads, seconds] : by_threads.items()) {
    if (seconds.is_number() && seconds.get<double>() > 0)
      out[threads] = seconds.get<double>();
  }
  return out;
}

// Both runs' fastest canaries (BASE's, NEW's) at each thread count both have. NEW's over BASE's is
// the machine's speed ratio: a host that gives the guest less of its cores for a whole run slows
// every case by about as much, which no check inside a run can see. Seen here (2026-11-25, 24
// pairs of the A/As of 18:22-18:41 and 19:08-19:20 and of 20:35-20:45, results/aa-stop35-final,
// aa-stop35-pinned, aa-stop36; bench/speed_adjust.py): the canary ratio and the median ratio of
// the pair's cases were 0.8% apart on average, at most 1.9% (x1.085 against x1.076, x0.934
// against x0.938, x0.980 against x0.965), memory-bound and other cases alike.
std::map<std::string, std::pair<double, double>> common_canaries(const Json& base,
                                                                 const Json& candidate) {
  std::map<std::string, std::pair<double, double>> out;
  const auto a = fastest_canaries(base), b = fastest_canaries(candidate);
  for (const auto& [threads, seconds] : a) {
    const auto it = b.find(threads);
    if (it != b.end())
      out[threads] = {seconds, it->second};
  }
  return out;
}

// A note when the machine ran the two runs more than the tolerance apart in speed, and one on what
// --adjust-speed divided (`divided`: Comparison::speed_factors).
void note_speed_difference(const std::map<std::string, std::pair<double, double>>& canaries,
                           const CompareOptions& options,
                           const std::map<std::string, double>& divided,
                           std::vector<std::string>& notes) {
  std::vector<std::string> differing;
  for (const auto& [threads, seconds] : canaries) {
    const double ratio = seconds.second / seconds.first;
    if (std::abs(ratio - 1.0) <= options.speed_tolerance)
      continue;
    differing.push_back(fmt::format("{} thread(s): {:.1f} us in BASE, {:.1f} us in NEW, x{:.3f}",
                                    threads, seconds.first * 1e6, seconds.second * 1e6, ratio));
  }
  if (!differing.empty()) {
    notes.push_back("the machine ran the two runs at different speeds (fastest speed canary, " +
                    core::join(differing, "; ") +
                    "): every ratio carries about that much of the host's change " +
                    (options.adjust_speed
                         ? "as well as the code's, unless divided out (--adjust-speed, below)"
                         : "as well as the code's (--adjust-speed divides it out)"));
  }
  if (!options.adjust_speed)
    return;
  if (divided.empty()) {
    notes.push_back("--adjust-speed: nothing divided: the two files have no thread count with a "
                    "speed canary in common");
    return;
  }
  std::vector<std::string> factors;
  for (const auto& [threads, ratio] : divided)
    factors.push_back(fmt::format("{} thread(s): x{:.3f}", threads, ratio));
  notes.push_back(
      "--adjust-speed: NEW's CPU times divided by the machine's speed ratio (fastest speed canary, "
      "NEW's "
      "over BASE's; " +
      core::join(factors, "; ") +
      ") before the ratios, the U test and the verdicts, which then show the code's change without "
      "the host's; the times shown are as measured");
}

} // namespace opbench::compare::detail
