#pragma once
// Internal to plan: an entry's cases swept over the --axis values (a sample's sizes and
// parameters, an operator's named dimensions).

#include <vector>

#include "opbench/catalog/catalog.hpp"
#include "opbench/plan/planner.hpp"

namespace opbench::plan {

// The entry's cases once its swept axes and parameters (samples) or named dimensions (operators)
// take each of their values: every combination of those it has, from each catalogue case; its
// catalogue cases when it has none of them. A combination reached from two catalogue cases is
// planned once.
std::vector<catalog::CatalogCase> swept(const catalog::Entry& entry,
                                        const std::vector<AxisSweep>& axes);

// Throws UsageError naming the axes and their product when `axes` (those `entry` has) would make
// more than k_max_planned_cases points of one of its cases: checked before anything is made, so a
// sweep of 10^12 points costs nothing.
void check_sweep_size(const catalog::Entry& entry, const std::vector<const AxisSweep*>& axes);

} // namespace opbench::plan
