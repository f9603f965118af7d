#include "sweeps.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "opbench/catalog/binder.hpp"
#include "opbench/config/named_dims.hpp"

namespace opbench::plan {
namespace {

// An operator entry's cases once each named dimension an --axis names takes each of the axis'
// values (every combination, from each catalogue case that declares them), bound again with the
// new sizes; a case without the dimension stays as it is. A computation reached twice is planned
// once, so a point of a sweep has the id a row with those sizes written out would have.
std::vector<catalog::CatalogCase> swept_dims(const catalog::Entry& entry,
                                             const std::vector<AxisSweep>& axes) {
  std::vector<catalog::CatalogCase> out;
  for (const auto& base : entry.cases) {
    std::vector<std::map<std::string, std::int64_t>> points{base.spec.dims};
    for (const auto& axis : axes) {
      if (base.spec.dims.count(axis.name) == 0)
        continue;
      std::vector<std::map<std::string, std::int64_t>> next;
      for (const auto& point : points) {
        for (std::int64_t value : axis_sizes(axis)) {
          auto with = point;
          with[axis.name] = value;
          next.push_back(std::move(with));
        }
      }
      points = std::move(next);
    }
    for (const auto& point : points) {
      catalog::CatalogCase c = base;
      if (point != base.spec.dims) {
        c.spec.dims = point;
        c.bound = catalog::bind_case(base.spec.op,
                                     config::with_dims(base.spec.args, point, base.spec.location()),
                                     base.spec.location());
      }
      if (std::none_of(out.begin(), out.end(),
                       [&](const auto& u) { return u.bound.given == c.bound.given; })) {
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

} // namespace

std::vector<catalog::CatalogCase> swept(const catalog::Entry& entry,
                                        const std::vector<AxisSweep>& axes) {
  if (axes.empty())
    return entry.cases;
  if (entry.kind != results::Kind::sample)
    return swept_dims(entry, axes);
  std::vector<catalog::CatalogCase> out = entry.cases;
  for (const auto& axis : axes) {
    // How each value changes a case's given arguments: a size in place, or a parameter by name.
    std::vector<std::function<void(Json&)>> settings;
    const auto at = std::find(entry.axes.begin(), entry.axes.end(), axis.name);
    if (at != entry.axes.end()) {
      const auto position = static_cast<std::size_t>(at - entry.axes.begin());
      for (std::int64_t value : axis_sizes(axis)) {
        settings.emplace_back([position, value](Json& given) { given["sizes"][position] = value; });
      }
    } else if (const auto* parameter = catalog::find_parameter(entry.parameters, axis.name)) {
      for (const Json& value : parameter_values(axis, *parameter, entry.name)) {
        settings.emplace_back([&entry, parameter, value](Json& given) {
          given = catalog::with_parameter(given, entry.parameters, parameter->name, value);
        });
      }
    } else {
      continue;
    }
    std::vector<catalog::CatalogCase> next;
    for (const auto& base : out) {
      for (const auto& set : settings) {
        catalog::CatalogCase c = base;
        set(c.bound.given);
        c.bound.arguments = c.bound.given;
        c.spec.args = c.bound.given;
        if (std::none_of(next.begin(), next.end(),
                         [&](const auto& u) { return u.bound.given == c.bound.given; })) {
          next.push_back(std::move(c));
        }
      }
    }
    out = std::move(next);
  }
  return out;
}

} // namespace opbench::plan
