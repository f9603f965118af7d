#include "opbench/plan/planner.hpp"

#include "sweeps.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "opbench/catalog/libraries.hpp"
#include "opbench/config/named_dims.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::plan {
namespace {

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string base_name(const std::string& name) {
  const auto dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

// The entry's own name, without overload, or "aten::" + either.
bool entry_name_matches(const catalog::Entry& entry, const std::string& name) {
  const std::string wanted = core::starts_with(name, "aten::") ? name.substr(6) : name;
  return entry.name == wanted || base_name(entry.name) == wanted;
}

} // namespace

results::Case make_case(const std::string& name, const catalog::BoundOp& bound,
                        const std::string& dtype, const std::string& device, int threads,
                        results::Direction direction, std::uint64_t seed,
                        const std::string& memory_format, results::Stage stage) {
  results::Case c;
  c.name = name;
  c.kind = results::Kind::op;
  c.op = bound.qualified();
  c.schema = bound.schema;
  c.library = catalog::library_of(c.op);
  c.given = bound.given;
  c.arguments = bound.arguments;
  c.dtype = dtype;
  c.device = device;
  c.threads = threads;
  c.direction = direction;
  c.seed = seed;
  c.memory_format = memory_format;
  c.stage = stage;
  c.case_id =
      results::make_case_id(name, c.given, dtype, device, threads, direction, memory_format, stage);
  return c;
}

bool in_shard(const std::string& case_id, int index, int count) {
  return count <= 1 || core::stable_hash(case_id) % static_cast<std::uint64_t>(count) ==
                           static_cast<std::uint64_t>(index);
}

std::pair<int, int> parse_shard(const std::string& text) {
  const auto parts = core::split(text, '/');
  try {
    if (parts.size() == 2) {
      std::size_t used_i = 0, used_n = 0;
      const int index = std::stoi(parts[0], &used_i);
      const int count = std::stoi(parts[1], &used_n);
      if (used_i == parts[0].size() && used_n == parts[1].size() && count >= 1 && index >= 0 &&
          index < count) {
        return {index, count};
      }
    }
  } catch (const std::exception&) {
  }
  throw UsageError("bad --shard '" + text + "', expected I/N with 0 <= I < N (e.g. 0/4)");
}

namespace {

std::int64_t integer(const std::string& text, const std::string& axis, std::int64_t min,
                     const std::string& what) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value < min) {
    throw UsageError("bad --axis '" + axis + "': '" + text + "' is not " + what);
  }
  return value;
}

// Integers and ranges LO:HI[:STEP|:*FACTOR], each at least `min`.
std::vector<std::int64_t> integers(const AxisSweep& axis, std::int64_t min,
                                   const std::string& what) {
  const std::string& text = axis.text;
  std::vector<std::int64_t> values;
  for (const auto& item : axis.items) {
    const auto parts = core::split(item, ':');
    if (parts.size() == 1) {
      values.push_back(integer(parts[0], text, min, what));
      continue;
    }
    if (parts.size() > 3)
      throw UsageError("bad --axis '" + text + "': '" + item + "' is not LO:HI[:STEP]");
    const std::int64_t lo = integer(parts[0], text, min, what),
                       hi = integer(parts[1], text, min, what);
    if (hi < lo)
      throw UsageError("bad --axis '" + text + "': the range '" + item + "' ends before it starts");
    const bool geometric = parts.size() == 3 && core::starts_with(parts[2], "*");
    const std::int64_t step = parts.size() == 3 ? integer(geometric ? parts[2].substr(1) : parts[2],
                                                          text, 1, "a positive integer")
                                                : 1;
    if (geometric && (step < 2 || lo < 1)) {
      throw UsageError("bad --axis '" + text +
                       "': a geometric range needs a factor of at least 2 and a positive start");
    }
    for (std::int64_t v = lo; v <= hi;) {
      values.push_back(v);
      if (values.size() > 10000)
        throw UsageError("bad --axis '" + text + "': over 10000 values");
      // (no step past the largest integer)
      if (geometric ? v > hi / step : v > hi - step)
        break;
      v = geometric ? v * step : v + step;
    }
  }
  return values;
}

} // namespace

AxisSweep parse_axis(const std::string& text) {
  const auto equals = text.find('=');
  AxisSweep axis;
  axis.text = text;
  axis.name = equals == std::string::npos ? "" : core::trim(text.substr(0, equals));
  if (!axis.name.empty()) {
    for (const auto& item : core::split(text.substr(equals + 1), ','))
      axis.items.push_back(core::trim(item));
  }
  if (axis.name.empty() || axis.items.empty() ||
      std::any_of(axis.items.begin(), axis.items.end(),
                  [](const auto& item) { return item.empty(); })) {
    throw UsageError(
        "bad --axis '" + text +
        "', expected NAME=VALUES (e.g. boxes=100,200 or boxes=100:1600:*2 or mode=iou,giou)");
  }
  return axis;
}

std::vector<std::int64_t> axis_sizes(const AxisSweep& axis) {
  return integers(axis, 1, "a positive integer");
}

std::vector<Json> parameter_values(const AxisSweep& axis, const catalog::SampleParameter& parameter,
                                   const std::string& sample) {
  const std::string whose = " (" + sample + "'s " + parameter.name + ")";
  std::vector<Json> values;
  if (parameter.type == "int64") {
    for (std::int64_t v :
         integers(axis, static_cast<std::int64_t>(parameter.min), parameter.domain() + whose)) {
      values.emplace_back(v);
    }
  } else {
    for (const auto& item : axis.items)
      values.push_back(Json(item));
  }
  for (auto& value : values) {
    try {
      value = parameter.value_of(value.is_string() ? value.get<std::string>() : value.dump());
    } catch (const std::invalid_argument& e) {
      throw UsageError("bad --axis '" + axis.text + "': " + e.what() + whose);
    }
  }
  return values;
}

bool case_name_matches(const results::Case& c, const std::string& name) {
  const std::string wanted = core::starts_with(name, "aten::") ? name.substr(6) : name;
  return c.name == wanted || base_name(c.name) == wanted || c.op == "aten::" + wanted;
}

bool case_matches(const catalog::CatalogCase& c, const std::string& name) {
  const std::string qualified = c.bound.qualified();
  return qualified == name || qualified == "aten::" + name;
}

bool name_matches(const catalog::Entry& entry, const std::string& name) {
  return entry_name_matches(entry, name) ||
         std::any_of(entry.cases.begin(), entry.cases.end(),
                     [&](const auto& c) { return case_matches(c, name); });
}

namespace {

// "'x' in --flag (nearest: a, b, c; HINT)".
std::string unknown_value(const std::string& what, const std::string& value,
                          const std::string& flag, const std::vector<std::string>& known,
                          const std::string& hint) {
  return "unknown " + what + " '" + value + "' in " + flag +
         " (nearest: " + core::join(core::nearest(value, known), ", ") + "; " + hint + ")";
}

} // namespace

void check_filters(const catalog::Catalog& catalog, const std::vector<std::string>& tags,
                   const std::vector<std::string>& categories) {
  std::set<std::string> known_tags, known_categories;
  for (const auto& entry : catalog.entries) {
    known_tags.insert(entry.tags.begin(), entry.tags.end());
    known_categories.insert(entry.category);
  }
  for (const auto& tag : tags) {
    if (known_tags.count(core::canonical_tag(tag)) == 0) {
      throw UsageError(unknown_value("tag", tag, "--tags", {known_tags.begin(), known_tags.end()},
                                     "opbench list-tags lists them"));
    }
  }
  for (const auto& category : categories) {
    if (known_categories.count(category) == 0) {
      throw UsageError(unknown_value("category", category, "--category",
                                     {known_categories.begin(), known_categories.end()},
                                     "opbench list shows them"));
    }
  }
}

namespace {

// Gives each implementation of a variant group its baseline at the same point and axes (when
// that is planned too: a shard or --case may leave it out).
void pair_variants(std::vector<results::Case>& cases) {
  std::map<std::string, const results::Case*> baselines;
  for (const auto& c : cases) {
    if (c.variant.baseline)
      baselines.emplace(results::variant_key(c), &c);
  }
  for (auto& c : cases) {
    if (c.variant.group.empty() || c.variant.baseline)
      continue;
    const auto it = baselines.find(results::variant_key(c));
    if (it == baselines.end())
      continue;
    c.variant.baseline_id = it->second->case_id;
    c.variant.baseline_op = it->second->op;
    c.variant.baseline_given = it->second->given;
    c.variant.baseline_arguments = it->second->arguments;
  }
}

} // namespace

std::vector<results::Case> make_plan(const catalog::Catalog& catalog, const PlanOptions& options) {
  check_filters(catalog, options.tags, options.categories);
  std::vector<std::string> operator_names, sample_names;
  for (const auto& entry : catalog.entries)
    (entry.kind == results::Kind::sample ? sample_names : operator_names).push_back(entry.name);
  for (const auto& name : options.ops) {
    const bool found =
        std::any_of(catalog.entries.begin(), catalog.entries.end(), [&](const auto& entry) {
          return entry.kind != results::Kind::sample && name_matches(entry, name);
        });
    if (!found) {
      throw UsageError(unknown_value("operator", name, "--ops", operator_names,
                                     "opbench list shows what can run"));
    }
  }
  for (const auto& name : options.samples) {
    if (!std::any_of(catalog.entries.begin(), catalog.entries.end(), [&](const auto& e) {
          return e.kind == results::Kind::sample && e.name == name;
        })) {
      throw UsageError(
          unknown_value("sample", name, "--samples", sample_names, "opbench list --kind sample"));
    }
  }
  for (const auto& axis : options.axes) {
    if (axis.name == "unused")
      throw UsageError("--axis unused: those catalogue sizes are not followed by the inputs");
  }
  std::set<std::string> axes_swept; // the --axis names some selected sample has
  const bool by_name = !options.ops.empty() || !options.samples.empty();
  std::vector<results::Case> cases;
  std::map<std::string, std::string> origin_of;
  for (const auto& entry : catalog.entries) {
    if (by_name) {
      const bool named =
          entry.kind == results::Kind::sample
              ? contains(options.samples, entry.name)
              : std::any_of(options.ops.begin(), options.ops.end(),
                            [&](const auto& name) { return name_matches(entry, name); });
      if (!named)
        continue;
    }
    if (!options.categories.empty() && !contains(options.categories, entry.category))
      continue;
    if (!options.tags.empty() &&
        std::none_of(options.tags.begin(), options.tags.end(), [&](const auto& tag) {
          return contains(entry.tags, core::canonical_tag(tag));
        })) {
      continue;
    }
    // A name that selects the entry by its own name takes all its cases; a resolved overload
    // name ("add.Tensor") takes only the cases bound to that overload.
    const bool whole_entry =
        options.ops.empty() || entry.kind == results::Kind::sample ||
        std::any_of(options.ops.begin(), options.ops.end(),
                    [&](const auto& name) { return entry_name_matches(entry, name); });
    for (const auto& axis : options.axes) {
      const bool has_it =
          entry.kind == results::Kind::sample
              ? contains(entry.axes, axis.name) ||
                    catalog::find_parameter(entry.parameters, axis.name) != nullptr
              : std::any_of(entry.cases.begin(), entry.cases.end(),
                            [&](const auto& c) { return c.spec.dims.count(axis.name) > 0; });
      if (has_it)
        axes_swept.insert(axis.name);
    }
    for (const auto& item : swept(entry, options.axes)) {
      if (!whole_entry &&
          std::none_of(options.ops.begin(), options.ops.end(),
                       [&](const auto& name) { return case_matches(item, name); })) {
        continue;
      }
      if (!options.shape_classes.empty() &&
          !contains(options.shape_classes, item.spec.shape_class)) {
        continue;
      }
      // A variant group's implementation: its group, and the point (the group's case at its
      // named sizes) that pairs it with the baseline (pair_variants).
      results::Variant variant;
      if (!item.spec.variant_group.empty()) {
        variant.group = item.spec.variant_group;
        variant.point = item.spec.variant_point;
        for (const auto& [name, size] : item.spec.dims)
          variant.point += " " + name + "=" + std::to_string(size);
        variant.baseline = item.spec.variant_baseline;
      }
      for (const auto& dtype : options.dtypes) {
        for (const auto& device : options.devices) {
          for (int threads : options.threads) {
            std::vector<results::Direction> directions{results::Direction::forward};
            if (options.backward)
              directions.push_back(results::Direction::backward);
            if (options.train)
              directions.push_back(results::Direction::train);
            for (const auto& memory_format : options.memory_formats) {
              // A layout axis means something only for 4-d and 5-d tensors.
              if (memory_format != "contiguous" && !results::has_4d_or_5d_tensor(item.bound.given))
                continue;
              for (const auto& direction : directions) {
                for (const auto& stage : options.stages) {
                  // Stages time the forward computation only.
                  if (direction != results::Direction::forward && stage != results::Stage::eager)
                    continue;
                  results::Case c = make_case(entry.name, item.bound, dtype, device, threads,
                                              direction, options.seed, memory_format, stage);
                  c.kind = entry.kind;
                  c.shape_class = item.spec.shape_class;
                  c.category = item.spec.category.empty() ? entry.category : item.spec.category;
                  c.tags = item.spec.tags;
                  std::sort(c.tags.begin(), c.tags.end());
                  c.source = item.spec.source;
                  c.origin = item.spec.location();
                  c.count = item.spec.count;
                  c.skip_reason = item.spec.unsupported;
                  if (c.skip_reason.empty() && !entry.dtypes.empty() &&
                      !contains(entry.dtypes, dtype)) {
                    c.skip_reason = entry.name + " computes in " + core::join(entry.dtypes, ", ") +
                                    ", not " + dtype + " (opbench show " + entry.name + ")";
                  }
                  c.variant = variant;
                  if (!in_shard(c.case_id, options.shard_index, options.shard_count))
                    continue;
                  if (cases.size() >= k_max_planned_cases) {
                    throw UsageError("the plan holds over " + std::to_string(k_max_planned_cases) +
                                     " cases (--axis values x dtypes x devices x threads x stages "
                                     "...): select fewer");
                  }
                  auto [it, inserted] = origin_of.emplace(c.case_id, c.origin);
                  if (!inserted) {
                    throw ConfigError(c.origin + ": duplicate case " + c.case_id + " (same as " +
                                      it->second + ")");
                  }
                  cases.push_back(std::move(c));
                }
              }
            }
          }
        }
      }
    }
  }
  for (const auto& axis : options.axes) {
    if (axes_swept.count(axis.name) == 0) {
      throw UsageError(
          "--axis " + axis.name +
          ": no selected operator has that named dimension, nor any selected sample that axis "
          "or parameter (opbench show NAME lists them)");
    }
  }
  pair_variants(cases);
  return cases;
}

} // namespace opbench::plan
