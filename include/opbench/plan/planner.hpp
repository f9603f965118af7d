#pragma once
// Turns the catalog and the run's filters and axes into immutable cases.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "opbench/catalog/catalog.hpp"
#include "opbench/results/case.hpp"

namespace opbench::plan {

// One --axis NAME=VALUES, its values as written: what they are depends on the axis, a size or a
// parameter of each sample that has it (axis_sizes, parameter_values).
struct AxisSweep {
  std::string text;               // "boxes=100,200:800:*2", for messages
  std::string name;               // "boxes"
  std::vector<std::string> items; // "100", "200:800:*2"
};

struct PlanOptions {
  std::vector<std::string> ops;           // names ("add", "add.Tensor", "aten::add"); empty: all
  std::vector<std::string> samples;       // long-tail sample names; with ops, the union
  std::vector<std::string> tags;          // keep entries with any of these tags; empty: all
  std::vector<std::string> categories;    // keep entries of these categories; empty: all
  std::vector<std::string> shape_classes; // keep cases of these shape classes; empty: all
  std::vector<std::string> dtypes{"float32"};
  std::vector<std::string> devices{"cpu"};
  std::vector<int> threads{1};
  std::vector<std::string> memory_formats{"contiguous"}; // "channels_last" only for 4-d/5-d inputs
  bool backward = false; // add a backward case after each forward case
  bool train = false;    // add a training-step case (Direction::train) after those
  // Stages of each forward case (results::stage_names); backward and train cases run eager only.
  std::vector<results::Stage> stages{results::Stage::eager};
  // Sample sizes and parameters swept by name (--axis NAME=VALUES): each catalogue case of a
  // sample with that axis or parameter, once per value (several: every combination; duplicates
  // once).
  std::vector<struct AxisSweep> axes;
  std::uint64_t seed = 0;
  int shard_index = 0; // keep only shard `shard_index` of `shard_count` (see in_shard)
  int shard_count = 1;
};

// A case of entry `name` bound as `bound`, at one point of the axes; kind "op", case_id made
// from these. Metadata (shape class, source, origin) is left for the caller.
results::Case make_case(const std::string& name, const catalog::BoundOp& bound,
                        const std::string& dtype, const std::string& device, int threads,
                        results::Direction direction, std::uint64_t seed,
                        const std::string& memory_format = "contiguous",
                        results::Stage stage = results::Stage::eager);

// True when the case belongs to shard `index` of `count`: core::stable_hash(case_id) % count ==
// index. Every case is in exactly one shard, whatever else is planned, on every machine.
bool in_shard(const std::string& case_id, int index, int count);

// Parses `I/N` (0 <= I < N); throws UsageError otherwise.
std::pair<int, int> parse_shard(const std::string& text);

// The most cases one plan may hold: a sweep (--axis values multiplied over several axes, then by
// the dtypes, devices, threads and stages) past it is a usage error naming it, found before the
// cases are made. It stays above bench/plan_diff.sh's "axes" plan (the whole catalogue on every
// axis); docs/hostile-input.md gives the sizes.
inline constexpr std::size_t k_max_planned_cases = 200000;

// "NAME=VALUES" of --axis, VALUES comma-separated. Throws UsageError naming the text when there
// is no name or no value.
AxisSweep parse_axis(const std::string& text);
// The values of a size axis: positive integers and ranges, "LO:HI" (step 1), "LO:HI:STEP" or
// "LO:HI:*FACTOR" (geometric), HI included when reached; "boxes=100,200:800:*2" -> {100, 200,
// 400, 800}. Throws UsageError naming the text.
std::vector<std::int64_t> axis_sizes(const AxisSweep& axis);
// The values of `parameter` of `sample` that the axis gives (an int64 parameter takes ranges as
// a size axis does). Throws UsageError naming the text, the sample and what the parameter takes.
std::vector<Json> parameter_values(const AxisSweep& axis, const catalog::SampleParameter& parameter,
                                   const std::string& sample);

// True when `name` selects `entry`: its exact name, its name without overload, "aten::" + either,
// or the resolved operator of one of its cases.
bool name_matches(const catalog::Entry& entry, const std::string& name);

// True when `name` is the operator a case resolved to ("add.Tensor" or "aten::add.Tensor").
bool case_matches(const catalog::CatalogCase& c, const std::string& name);

// True when `name` selects a planned case: its entry name, that without overload, or its
// resolved operator, with or without "aten::".
bool case_name_matches(const results::Case& c, const std::string& name);

// Cases in catalog order, then axes (dtype, device, threads, layout, direction, stage). Throws
// UsageError for a name in `ops` that selects nothing, and ConfigError for two rows that make the
// same case id.
std::vector<results::Case> make_plan(const catalog::Catalog& catalog, const PlanOptions& options);

// Throws UsageError for a --tags or --category value no entry of `catalog` has, naming the value
// and the nearest known ones (a filter that matches nothing is a typo far more often than an
// empty selection); make_plan calls it, so does `list`.
void check_filters(const catalog::Catalog& catalog, const std::vector<std::string>& tags,
                   const std::vector<std::string>& categories);

} // namespace opbench::plan
