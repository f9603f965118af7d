#pragma once
// The CPUs of a duet's two sides (ab.hpp's Schedule::duet), internal to ab.

#include <array>
#include <vector>

#include "opbench/ab/ab.hpp"
#include "opbench/results/case.hpp"

namespace opbench::ab {

// The two halves of this process's CPUs (run::allowed_cpus) a duet's sides run on, split_cpus by
// the physical cores sysfs names; throws UsageError when there are fewer than two CPUs, or a case
// asks for more threads than the smaller half has.
std::array<std::vector<int>, 2> duet_halves(const std::vector<results::Case>& cases);

} // namespace opbench::ab
