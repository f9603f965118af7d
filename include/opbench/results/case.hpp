#pragma once
// An immutable, fully described benchmark case: what runs, with which arguments, where and how.

#include <cstdint>
#include <string>
#include <vector>

#include "opbench/core/json.hpp"
#include "opbench/results/vocabulary.hpp"

namespace opbench::results {

// A case that is one implementation of a variant group (a config's "variants",
// docs/custom-ops.md#implementations-side-by-side): its group, the group's case it computes, and
// the baseline implementation of that case, which its outputs are held against before timing and
// its speedup is measured over (export --format variants).
struct Variant {
  std::string group;       // "" when the case is in no group
  std::string point;       // the group's case: its config pointer and its named sizes
  bool baseline = false;   // the group's first implementation
  std::string baseline_id; // otherwise: the baseline's case at this point; "" when not planned
  std::string baseline_op; // its operator, given and every argument (to call it for the check)
  Json baseline_given;
  Json baseline_arguments;
};

struct Case {
  std::string case_id; // stable, readable key: name/args/dtype/device/tN/direction
  std::string name;    // catalog name ("conv2d")
  Kind kind = Kind::op;
  std::string op;     // resolved operator, "aten::conv2d"
  std::string schema; // its schema text
  // The operator library that registered `op` (catalog/libraries.hpp), absolute; "" for
  // LibTorch's own. Not part of the case id: the same case from two builds of a library compares.
  std::string library;
  Json given;                    // given arguments, normalised (what the case id and re-runs use)
  Json arguments;                // every argument, defaults filled in
  std::string shape_class;       // may be empty
  std::string category;          // the config's category ("arithmetic", "longtail"); may be empty
  std::vector<std::string> tags; // the config's tags, sorted
  std::string source;            // where the shapes come from; may be empty
  std::string origin;            // config file:row
  std::string dtype;             // canonical dtype of tensors without their own
  std::string device;            // "cpu" or "cuda:N"
  int threads = 1;               // intra-op threads
  Direction direction = Direction::forward;
  std::string memory_format = "contiguous"; // or "channels_last" (4-d and 5-d tensor inputs)
  Stage stage = Stage::eager;               // how the computation runs (vocabulary.hpp)
  std::uint64_t seed = 0;                   // seed of the input generator
  int count = 1;           // calls per model invocation (extracted configs); a weight for reports
  std::string skip_reason; // non-empty: the case is recorded as skipped with this reason
  Variant variant;
};

// The key that pairs a variant group's implementations at one point: group, point, and the axes
// (dtype, device, threads, direction, layout, stage); "" for a case in no group.
std::string variant_key(const Case& c);

// `name/args/dtype/device/tN/direction`, args from `given` in schema order
// (`conv2d/input=32x3x224x224,weight=64x3x3x3,stride=[2,2]/float32/cpu/t4/forward`); a memory
// format other than contiguous adds a segment (`.../forward/channels_last`), then a stage other
// than eager another (`.../forward/script`), so eager ids stay what they always were.
std::string make_case_id(const std::string& name, const Json& given, const std::string& dtype,
                         const std::string& device, int threads, Direction direction,
                         const std::string& memory_format = "contiguous",
                         Stage stage = Stage::eager);

// The case id of `c` at stage "eager" (the row a stage table and compare hold its stages against).
std::string eager_case_id(const Case& c);

// What a case id says of the computation alone: its name and arguments, without dtype, device,
// threads, direction, layout or stage ("bbox2delta/sizes=[64]" of
// "bbox2delta/sizes=[64]/float32/cpu/t1/forward"). `opbench extract --sample` gives each
// recorded call this key of its case as `source`; `export --format breakdown` matches on it.
std::string case_key(const std::string& case_id);

// True when some given tensor (or tensor in a list) has 4 or 5 dimensions.
bool has_4d_or_5d_tensor(const Json& given);

// Compact text of one normalised argument value, as case ids show it.
std::string argument_text(const Json& value);

Json to_json(const Case& c);
// Reads a case back; throws ResultsError naming `where` when a field is missing.
Case case_from_json(const Json& json, const std::string& where);

} // namespace opbench::results
