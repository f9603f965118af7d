#pragma once
// Every benchmarkable thing, by name: operators from configs (and, later, long-tail samples).

#include <cstddef>
#include <string>
#include <vector>

#include "opbench/catalog/binder.hpp"
#include "opbench/catalog/sample_parameter.hpp"
#include "opbench/catalog/samples.hpp"
#include "opbench/config/case_spec.hpp"
#include "opbench/results/vocabulary.hpp"

namespace opbench::catalog {

// One config row, bound.
struct CatalogCase {
  config::CaseSpec spec;
  BoundOp bound;
};

// One benchmarkable name and its cases.
struct Entry {
  std::string name; // as configs write it, without "aten::": "conv2d", "add.Tensor"
  results::Kind kind = results::Kind::op; // op or sample
  std::string category;                   // first category its rows give; "" when none
  std::vector<std::string> tags;          // union of its rows' tags, sorted
  std::vector<CatalogCase> cases;
  std::string written_from;      // samples whose catalogue row has no source: what the body follows
  std::vector<std::string> axes; // samples: the names of each case's sizes
  std::string host_sync; // samples: why the body waits for the device, as its original; "" never
  std::vector<std::size_t> grad_inputs; // samples: the inputs backward differentiates
  std::vector<std::string> dtypes;      // samples: the dtypes a case may take; empty: any
  std::vector<SampleParameter>
      parameters; // samples: the original's keyword arguments (see SampleInfo)

  // Config files its cases come from, in order of first appearance.
  std::vector<std::string> files() const;
};

struct Catalog {
  std::vector<Entry> entries; // sorted by name

  // The entry named `name`, nullptr when none.
  const Entry* find(const std::string& name) const;
};

// Loads and binds every row of `files`. Every bad row is reported, one per line, in one
// ConfigError (`file:row: what is wrong`), before anything runs.
Catalog load_catalog(const std::vector<std::string>& files);

// Adds long-tail samples (kind "sample", category "longtail"; the built-in ones are
// samples::sample_infos()), one case per catalogue argument case (shape class "common", so they
// are part of the default suite).
void add_samples(Catalog& catalog, const std::vector<SampleInfo>& samples);

} // namespace opbench::catalog
