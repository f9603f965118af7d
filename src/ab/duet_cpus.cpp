// The CPUs of a duet's two sides (ab.hpp's Schedule::duet): whole cores to each half.
#include "duet_cpus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/run/child_runs.hpp"

namespace opbench::ab {
namespace {

// The physical core of `cpu` as sysfs names it ("PACKAGE/CORE"); the CPU itself when sysfs does not
// say.
std::string core_of(int cpu) {
  const std::string dir = fmt::format("/sys/devices/system/cpu/cpu{}/topology/", cpu);
  try {
    return core::trim(core::read_file(dir + "physical_package_id")) + "/" +
           core::trim(core::read_file(dir + "core_id"));
  } catch (const Error&) {
    return "cpu " + std::to_string(cpu);
  }
}

} // namespace

std::array<std::vector<int>, 2> split_cpus(const std::vector<int>& cpus,
                                           const std::function<std::string(int)>& core_of) {
  std::vector<std::string> order; // the cores, in the order their first CPU comes
  std::map<std::string, std::vector<int>> on;
  for (int cpu : cpus) {
    const std::string core = core_of(cpu);
    if (on.find(core) == on.end())
      order.push_back(core);
    on[core].push_back(cpu);
  }
  std::array<std::vector<int>, 2> halves;
  if (order.size() == 1) { // one core: its hardware threads, split
    for (std::size_t i = 0; i < cpus.size(); ++i)
      halves[i < cpus.size() / 2 ? 0 : 1].push_back(cpus[i]);
    return halves;
  }
  for (std::size_t k = 0; k < order.size(); ++k) {
    for (int cpu : on[order[k]])
      halves[k < order.size() / 2 ? 0 : 1].push_back(cpu);
  }
  for (auto& half : halves)
    std::sort(half.begin(), half.end());
  return halves;
}

std::array<std::vector<int>, 2> duet_halves(const std::vector<results::Case>& cases) {
  const std::vector<int> cpus = run::allowed_cpus();
  if (cpus.size() < 2) {
    throw UsageError(fmt::format("--schedule duet runs the sides at once on disjoint CPUs: this "
                                 "process may use {} CPU(s), it needs 2 at least",
                                 cpus.size()));
  }
  const std::array<std::vector<int>, 2> halves = split_cpus(cpus, core_of);
  const std::size_t fewer = std::min(halves[0].size(), halves[1].size());
  for (const auto& c : cases) {
    if (static_cast<std::size_t>(c.threads) > fewer) {
      throw UsageError(fmt::format("--schedule duet: case {} asks for {} threads, a side has {} "
                                   "CPU(s) (use --threads {} or fewer, or --schedule interleaved)",
                                   c.case_id, c.threads, fewer, fewer));
    }
  }
  return halves;
}

} // namespace opbench::ab
