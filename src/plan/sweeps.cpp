#include "sweeps.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "opbench/core/error.hpp"

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
  std::set<std::string> planned; // the given arguments of `out`, dumped: one look-up a point
  for (const auto& base : entry.cases) {
    std::vector<const AxisSweep*> its;
    for (const auto& axis : axes) {
      if (base.spec.dims.count(axis.name) > 0)
        its.push_back(&axis);
    }
    check_sweep_size(entry, its);
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
      if (planned.insert(c.bound.given.dump()).second)
        out.push_back(std::move(c));
    }
  }
  return out;
}

} // namespace

void check_sweep_size(const catalog::Entry& entry, const std::vector<const AxisSweep*>& axes) {
  double points = 1;
  std::string product;
  for (const AxisSweep* axis : axes) {
    const auto it = std::find(entry.axes.begin(), entry.axes.end(), axis->name);
    const auto* parameter = catalog::find_parameter(entry.parameters, axis->name);
    const std::size_t values =
        entry.kind == results::Kind::sample && it == entry.axes.end() && parameter != nullptr
            ? parameter_values(*axis, *parameter, entry.name).size()
            : axis_sizes(*axis).size();
    points *= static_cast<double>(values);
    product += (product.empty() ? "" : " x ") + axis->text + " (" + std::to_string(values) + ")";
  }
  if (points > static_cast<double>(k_max_planned_cases)) {
    std::ostringstream said;
    said.precision(0);
    said << std::fixed << "--axis " << product << ": " << points << " points of each case of "
         << entry.name << ", over the " << k_max_planned_cases
         << " cases a plan may hold; sweep fewer values or fewer axes at once";
    throw UsageError(said.str());
  }
}

std::vector<catalog::CatalogCase> swept(const catalog::Entry& entry,
                                        const std::vector<AxisSweep>& axes) {
  if (axes.empty())
    return entry.cases;
  if (entry.kind != results::Kind::sample)
    return swept_dims(entry, axes);
  std::vector<const AxisSweep*> its;
  for (const auto& axis : axes) {
    if (std::find(entry.axes.begin(), entry.axes.end(), axis.name) != entry.axes.end() ||
        catalog::find_parameter(entry.parameters, axis.name) != nullptr)
      its.push_back(&axis);
  }
  check_sweep_size(entry, its);
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
    std::set<std::string> planned; // the given arguments of `next`, dumped
    for (const auto& base : out) {
      for (const auto& set : settings) {
        catalog::CatalogCase c = base;
        set(c.bound.given);
        c.bound.arguments = c.bound.given;
        c.spec.args = c.bound.given;
        if (planned.insert(c.bound.given.dump()).second)
          next.push_back(std::move(c));
      }
    }
    out = std::move(next);
  }
  return out;
}

} // namespace opbench::plan
