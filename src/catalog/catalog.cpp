#include "opbench/catalog/catalog.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "opbench/catalog/libraries.hpp"
#include "opbench/catalog/samples.hpp"
#include "opbench/config/loader.hpp"
#include "opbench/config/named_dims.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::catalog {

std::vector<std::string> Entry::files() const {
  std::vector<std::string> out;
  for (const auto& c : cases) {
    if (std::find(out.begin(), out.end(), c.spec.file) == out.end())
      out.push_back(c.spec.file);
  }
  return out;
}

const Entry* Catalog::find(const std::string& name) const {
  for (const auto& entry : entries) {
    if (entry.name == name)
      return &entry;
  }
  return nullptr;
}

Catalog load_catalog(const std::vector<std::string>& files) {
  std::vector<std::string> errors;
  std::map<std::string, Entry> by_name;
  for (const auto& file : files) {
    std::vector<config::CaseSpec> specs;
    try {
      specs = config::load_file(file);
      // Every row of a file names the same libraries (a JSON config's "libraries"): loaded once,
      // and a file whose library does not load is that one error, not one per row.
      if (!specs.empty()) {
        for (const auto& library : specs.front().libraries)
          load_library(library, file + ":/libraries");
      }
    } catch (const ConfigError& e) {
      errors.emplace_back(e.what());
      continue;
    }
    for (auto& spec : specs) {
      std::string name = spec.op;
      if (core::starts_with(name, "aten::"))
        name = name.substr(6);
      try {
        BoundOp bound;
        if (spec.unsupported.empty()) {
          bound = bind_case(spec.op,
                            spec.dims.empty()
                                ? spec.args
                                : config::with_dims(spec.args, spec.dims, spec.location()),
                            spec.location());
        } else {
          // A recorded call that cannot run: kept, with its reason, as a case that is skipped.
          bound.name = core::starts_with(spec.op, "aten::") ? spec.op : "aten::" + spec.op;
          bound.given = spec.args;
          bound.arguments = spec.args;
        }
        Entry& entry = by_name[name];
        entry.name = name;
        if (entry.category.empty())
          entry.category = spec.category;
        entry.cases.push_back({std::move(spec), std::move(bound)});
      } catch (const ConfigError& e) {
        errors.emplace_back(e.what());
      }
    }
  }
  if (!errors.empty())
    throw ConfigError(core::join(errors, "\n"));

  Catalog catalog;
  for (auto& item : by_name) {
    std::set<std::string> tags;
    for (const auto& c : item.second.cases)
      tags.insert(c.spec.tags.begin(), c.spec.tags.end());
    item.second.tags.assign(tags.begin(), tags.end());
    catalog.entries.push_back(std::move(item.second));
  }
  return catalog;
}

} // namespace opbench::catalog

namespace opbench::catalog {

void add_samples(Catalog& catalog, const std::vector<SampleInfo>& samples) {
  for (const auto& info : samples) {
    Entry entry;
    entry.name = info.name;
    entry.kind = results::Kind::sample;
    entry.category = "longtail";
    entry.written_from = info.written_from;
    entry.axes = info.axes;
    entry.host_sync = info.host_sync;
    entry.grad_inputs = info.grad_inputs;
    entry.dtypes = info.dtypes;
    entry.parameters = info.parameters;
    for (const auto& tag : info.tags)
      entry.tags.push_back(core::canonical_tag(tag));
    std::sort(entry.tags.begin(), entry.tags.end());
    for (std::size_t i = 0; i < info.cases.size(); ++i) {
      CatalogCase c;
      c.spec.op = "sample::" + info.name;
      c.spec.args = info.cases[i];
      c.spec.shape_class = "common";
      c.spec.source = info.source + (info.url.empty() ? "" : " " + info.url);
      c.spec.category = entry.category;
      c.spec.tags = entry.tags;
      c.spec.file = "samples/" + info.file;
      c.spec.row = static_cast<int>(i + 1);
      c.bound.name = "sample::" + info.name;
      c.bound.schema =
          "sample " + info.name + (info.backward ? " (forward, backward)" : " (forward)");
      c.bound.given = info.cases[i];
      c.bound.arguments = info.cases[i];
      entry.cases.push_back(std::move(c));
    }
    catalog.entries.push_back(std::move(entry));
  }
  // By name; where an operator and a sample share one, the operator first (what `show NAME`
  // picks), whatever order the entries were added in (std::sort alone leaves ties unordered).
  std::sort(catalog.entries.begin(), catalog.entries.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(a.name, a.kind) < std::make_tuple(b.name, b.kind);
  });
}

} // namespace opbench::catalog
