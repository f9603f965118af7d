#include "opbench/plan/planner.hpp"

#include <algorithm>
#include <map>

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

}  // namespace

Case make_case(const std::string& name, const catalog::BoundOp& bound, const std::string& dtype,
               const std::string& device, int threads, const std::string& direction,
               std::uint64_t seed, const std::string& memory_format, const std::string& stage) {
  Case c;
  c.name = name;
  c.kind = "op";
  c.op = bound.qualified();
  c.schema = bound.schema;
  c.given = bound.given;
  c.arguments = bound.arguments;
  c.dtype = dtype;
  c.device = device;
  c.threads = threads;
  c.direction = direction;
  c.seed = seed;
  c.memory_format = memory_format;
  c.stage = stage;
  c.case_id = make_case_id(name, c.given, dtype, device, threads, direction, memory_format, stage);
  return c;
}

std::uint64_t stable_hash(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

bool in_shard(const std::string& case_id, int index, int count) {
  return count <= 1 || stable_hash(case_id) % static_cast<std::uint64_t>(count) ==
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

bool case_name_matches(const Case& c, const std::string& name) {
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

std::vector<Case> make_plan(const catalog::Catalog& catalog, const PlanOptions& options) {
  for (const auto& name : options.ops) {
    const bool found = std::any_of(catalog.entries.begin(), catalog.entries.end(), [&](const auto& entry) {
      return entry.kind != "sample" && name_matches(entry, name);
    });
    if (!found) {
      throw UsageError("unknown operator '" + name + "' in --ops (opbench list shows what can run)");
    }
  }
  for (const auto& name : options.samples) {
    if (!std::any_of(catalog.entries.begin(), catalog.entries.end(),
                     [&](const auto& e) { return e.kind == "sample" && e.name == name; })) {
      throw UsageError("unknown sample '" + name + "' in --samples (opbench list --kind sample)");
    }
  }
  const bool by_name = !options.ops.empty() || !options.samples.empty();
  std::vector<Case> cases;
  std::map<std::string, std::string> origin_of;
  for (const auto& entry : catalog.entries) {
    if (by_name) {
      const bool named = entry.kind == "sample"
                             ? contains(options.samples, entry.name)
                             : std::any_of(options.ops.begin(), options.ops.end(),
                                           [&](const auto& name) { return name_matches(entry, name); });
      if (!named) continue;
    }
    if (!options.categories.empty() && !contains(options.categories, entry.category)) continue;
    if (!options.tags.empty() &&
        std::none_of(options.tags.begin(), options.tags.end(),
                     [&](const auto& tag) { return contains(entry.tags, tag); })) {
      continue;
    }
    // A name that selects the entry by its own name takes all its cases; a resolved overload
    // name ("add.Tensor") takes only the cases bound to that overload.
    const bool whole_entry =
        options.ops.empty() || entry.kind == "sample" || std::any_of(options.ops.begin(), options.ops.end(), [&](const auto& name) {
          return entry_name_matches(entry, name);
        });
    for (const auto& item : entry.cases) {
      if (!whole_entry && std::none_of(options.ops.begin(), options.ops.end(),
                                       [&](const auto& name) { return case_matches(item, name); })) {
        continue;
      }
      if (!options.shape_classes.empty() &&
          !contains(options.shape_classes, item.spec.shape_class)) {
        continue;
      }
      for (const auto& dtype : options.dtypes) {
        for (const auto& device : options.devices) {
          for (int threads : options.threads) {
            std::vector<std::string> directions{"forward"};
            if (options.backward) directions.emplace_back("backward");
            for (const auto& memory_format : options.memory_formats) {
            // A layout axis means something only for 4-d and 5-d tensors.
            if (memory_format != "contiguous" && !has_4d_or_5d_tensor(item.bound.given)) continue;
            for (const auto& direction : directions) {
            for (const auto& stage : options.stages) {
              // Stages time the forward computation only.
              if (direction == "backward" && stage != "eager") continue;
              Case c = make_case(entry.name, item.bound, dtype, device, threads, direction,
                                 options.seed, memory_format, stage);
              c.kind = entry.kind;
              c.shape_class = item.spec.shape_class;
              c.category = item.spec.category.empty() ? entry.category : item.spec.category;
              c.tags = item.spec.tags;
              std::sort(c.tags.begin(), c.tags.end());
              c.source = item.spec.source;
              c.origin = item.spec.location();
              c.count = item.spec.count;
              c.skip_reason = item.spec.unsupported;
              if (!in_shard(c.case_id, options.shard_index, options.shard_count)) continue;
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
  return cases;
}

}  // namespace opbench::plan
