#pragma once
// Loads operator configs (CSV or JSON, by file extension) into CaseSpecs.
//
// CSV: a header row names the columns. `op` is required; `shape_class`, `source`, `category` and
// `tags` (space-separated) are metadata; every other column is an argument of the operator,
// named as in its schema. An empty cell leaves the argument at its default. A cell that is valid
// JSON is read as JSON (`[1,1]`, `2.5`, `true`, `{"shape":[8],"dtype":"int64"}`); any other cell
// is a string (`32x3x224x224`, `mean`).
//
// JSON: {"operators": [{"op": ..., "category": ..., "tags": [...], "cases": [
//          {"args": {...}, "shape_class": ..., "source": ..., "tags": [...],
//           "count": N, "unsupported": "why", "dims": {"M": 64}}]}],   (count, unsupported: from
//        "libraries": ["libmine.so"],                                       opbench extract)
//        "variants": [{"name": "gelu_tanh", "implementations": [{"op": "gelu", "args": {...}},
//                      {"op": "myops::fast_gelu"}], "cases": [{"args": {...}}]}]}
// A variant group's cases are read once per implementation, with its own args added; the first
// implementation is the baseline (CaseSpec::variant_*). docs/custom-ops.md tells the whole story.

#include <string>
#include <vector>

#include "opbench/config/case_spec.hpp"

namespace opbench::config {

// Every case of one CSV file; throws ConfigError naming file and row.
std::vector<CaseSpec> load_csv(const std::string& path);

// Every case of one JSON file; throws ConfigError naming file and JSON pointer.
std::vector<CaseSpec> load_json(const std::string& path);

// Every case of a file, chosen by extension (.csv or .json).
std::vector<CaseSpec> load_file(const std::string& path);

// Config files of a directory (*.csv, *.json, not recursive), sorted by name.
std::vector<std::string> config_files_in(const std::string& directory);

// Reads a CSV cell: JSON when it parses as JSON, else the text as a string; null when empty.
Json parse_cell(const std::string& cell);

} // namespace opbench::config
