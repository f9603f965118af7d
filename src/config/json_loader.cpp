// The JSON config reader (config/loader.hpp): operators and their cases, operator libraries, and
// variant groups (implementations of one computation side by side, docs/custom-ops.md).
#include <algorithm>
#include <map>
#include <set>

#include "opbench/config/loader.hpp"
#include "opbench/config/named_dims.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "read.hpp"

namespace opbench::config {
namespace {

// A string member of a JSON object, or "" when absent; ConfigError when of another type.
std::string string_member(const Json& object, const char* key, const std::string& where) {
  if (!object.contains(key) || object[key].is_null())
    return "";
  if (!object[key].is_string()) {
    throw ConfigError(where + ": '" + key + "' must be a string, found " + object[key].dump());
  }
  return object[key].get<std::string>();
}

std::vector<std::string> tags_member(const Json& object, const std::string& where) {
  if (!object.contains("tags") || object["tags"].is_null())
    return {};
  const Json& tags = object["tags"];
  if (!tags.is_array()) {
    throw ConfigError(
        where +
        ": 'tags' must be a list of strings, e.g. [\"elementwise\", \"broadcast\"] (found " +
        std::string(tags.type_name()) + ")");
  }
  std::vector<std::string> out;
  for (const auto& tag : tags) {
    if (!tag.is_string())
      throw ConfigError(where + ": 'tags' must be a list of strings");
    if (std::string canonical = core::canonical_tag(tag.get<std::string>()); !canonical.empty())
      out.push_back(std::move(canonical));
  }
  return out;
}

// A case's "dims": name -> positive size, each name well formed and used by `args`, and every
// name `args` uses declared (config/named_dims.hpp).
std::map<std::string, std::int64_t> dims_member(const Json& dims, const Json& args,
                                                const std::string& where) {
  if (!dims.is_object() || dims.empty()) {
    throw ConfigError(where + ": 'dims' must be an object of dimension name -> size, e.g. "
                              "{\"M\": 64, \"K\": 128}");
  }
  std::map<std::string, std::int64_t> out;
  for (const auto& item : dims.items()) {
    if (!is_dim_name(item.key())) {
      throw ConfigError(where + ": dimension name '" + item.key() +
                        "' must start with an upper-case letter and hold only letters, digits "
                        "and '_', no 'x' (which joins sizes: \"MxK\")");
    }
    if (!item.value().is_number_integer() || item.value().get<std::int64_t>() < 1) {
      throw ConfigError(where + ": dimension '" + item.key() +
                        "' must be a positive integer, got " + item.value().dump());
    }
    out[item.key()] = item.value().get<std::int64_t>();
  }
  (void)with_dims(args, out, where); // every name used is declared
  const auto used = dims_used(args);
  for (const auto& item : out) {
    if (std::find(used.begin(), used.end(), item.first) == used.end()) {
      throw ConfigError(where + ": dimension '" + item.first +
                        "' is declared in 'dims' but no argument uses it");
    }
  }
  return out;
}

void check_keys(const Json& object, const std::set<std::string>& valid, const std::string& where) {
  for (const auto& item : object.items()) {
    if (valid.count(item.key()) == 0) {
      std::vector<std::string> names(valid.begin(), valid.end());
      throw ConfigError(where + ": unknown key '" + item.key() +
                        "' (valid: " + core::join(names, ", ") + ")");
    }
  }
}

// The top-level "libraries": each path relative to the config's directory.
std::vector<std::string> libraries_member(const Json& document, const std::string& path) {
  std::vector<std::string> libraries;
  if (!document.contains("libraries"))
    return libraries;
  const Json& list = document["libraries"];
  if (!list.is_array())
    throw ConfigError(path + ":/libraries: expected a list of library paths");
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string() || list[i].get<std::string>().empty()) {
      throw ConfigError(path + ":/libraries/" + std::to_string(i) +
                        ": expected a library path (a string, relative to the config)");
    }
    const std::string library = list[i].get<std::string>();
    libraries.push_back(library.front() == '/' ? library
                                               : core::join_path(core::parent_path(path), library));
  }
  return libraries;
}

// One case object at `pointer`: its args, metadata and named dimensions (the operator is the
// caller's to set).
CaseSpec read_case(const Json& item, const std::string& path, const std::string& pointer, int row) {
  CaseSpec spec;
  spec.file = path;
  spec.row = row;
  spec.pointer = pointer;
  const std::string where = spec.location();
  if (!item.is_object())
    throw ConfigError(where + ": expected an object with 'args'");
  check_keys(
      item,
      {"args", "shape_class", "source", "tags", "description", "count", "unsupported", "dims"},
      where);
  spec.tags = tags_member(item, where);
  spec.shape_class = string_member(item, "shape_class", where);
  spec.source = string_member(item, "source", where);
  spec.unsupported = string_member(item, "unsupported", where);
  if (item.contains("count")) {
    if (!item["count"].is_number_integer() || item["count"].get<int>() < 1)
      throw ConfigError(where + ": 'count' must be a positive integer");
    spec.count = item["count"].get<int>();
  }
  if (item.contains("args")) {
    if (!item["args"].is_object())
      throw ConfigError(where + ": 'args' must be an object of argument name -> value");
    for (const auto& arg : item["args"].items()) {
      if (!arg.value().is_null())
        spec.args[arg.key()] = arg.value();
    }
  }
  if (item.contains("dims"))
    spec.dims = dims_member(item["dims"], spec.args, where);
  return spec;
}

// A list member that must hold at least one element.
const Json& nonempty_list(const Json& object, const char* key, const std::string& where,
                          const std::string& what) {
  if (!object.contains(key) || !object[key].is_array() || object[key].empty())
    throw ConfigError(where + ": '" + key + "' must be a non-empty list of " + what);
  return object[key];
}

void read_operators(const Json& operators, const std::string& path, const std::string& base,
                    std::vector<CaseSpec>& cases) {
  for (std::size_t i = 0; i < operators.size(); ++i) {
    const Json& entry = operators[i];
    const std::string where = path + ":" + base + "/" + std::to_string(i);
    if (!entry.is_object())
      throw ConfigError(where + ": expected an object with 'op' and 'cases'");
    check_keys(entry, {"op", "category", "tags", "cases", "description"}, where);
    const std::string op = string_member(entry, "op", where);
    if (op.empty())
      throw ConfigError(where + ": missing 'op', expected an operator name");
    const std::string category = string_member(entry, "category", where);
    const auto tags = tags_member(entry, where);
    const Json& list = nonempty_list(entry, "cases", where, "cases");
    for (std::size_t c = 0; c < list.size(); ++c) {
      CaseSpec spec =
          read_case(list[c], path, base + "/" + std::to_string(i) + "/cases/" + std::to_string(c),
                    static_cast<int>(cases.size() + 1));
      spec.op = op;
      spec.category = category;
      spec.tags.insert(spec.tags.begin(), tags.begin(), tags.end());
      cases.push_back(std::move(spec));
    }
  }
}

// "variants": [{"name", "implementations": [{"op", "args"}], "cases": [...]}]: every case once
// per implementation, with the implementation's own arguments added; the first implementation is
// the baseline the others are held against.
void read_variants(const Json& variants, const std::string& path, std::vector<CaseSpec>& cases) {
  if (!variants.is_array())
    throw ConfigError(path + ":/variants: expected a list of variant groups");
  std::set<std::string> names;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const Json& group = variants[v];
    const std::string pointer = "/variants/" + std::to_string(v);
    const std::string where = path + ":" + pointer;
    if (!group.is_object())
      throw ConfigError(where + ": expected an object with 'name', 'implementations' and 'cases'");
    check_keys(group, {"name", "description", "category", "tags", "implementations", "cases"},
               where);
    const std::string name = string_member(group, "name", where);
    if (name.empty() || !names.insert(name).second)
      throw ConfigError(where + ": 'name' must be a name no other variant group of the file has");
    const Json& implementations =
        nonempty_list(group, "implementations", where, "implementations, the baseline first");
    if (implementations.size() < 2)
      throw ConfigError(where + "/implementations: a variant group needs two implementations");
    const Json& list = nonempty_list(group, "cases", where, "cases");
    const auto tags = tags_member(group, where);
    for (std::size_t c = 0; c < list.size(); ++c) {
      const std::string case_pointer = pointer + "/cases/" + std::to_string(c);
      const CaseSpec shared = read_case(list[c], path, case_pointer, 0);
      for (std::size_t k = 0; k < implementations.size(); ++k) {
        const Json& implementation = implementations[k];
        const std::string at = where + "/implementations/" + std::to_string(k);
        if (!implementation.is_object())
          throw ConfigError(at + ": expected an object with 'op' (and its own 'args')");
        check_keys(implementation, {"op", "args"}, at);
        CaseSpec spec = shared;
        spec.op = string_member(implementation, "op", at);
        if (spec.op.empty())
          throw ConfigError(at + ": missing 'op', expected an operator name");
        if (implementation.contains("args")) {
          if (!implementation["args"].is_object())
            throw ConfigError(at + ": 'args' must be an object of argument name -> value");
          for (const auto& arg : implementation["args"].items()) {
            if (spec.args.contains(arg.key())) {
              throw ConfigError(path + ":" + case_pointer + ": argument '" + arg.key() +
                                "' is given by the case and by implementation " +
                                std::to_string(k) + " (" + spec.op + ")");
            }
            spec.args[arg.key()] = arg.value();
          }
        }
        spec.row = static_cast<int>(cases.size() + 1);
        spec.pointer = case_pointer + "/implementations/" + std::to_string(k);
        spec.category = string_member(group, "category", where);
        spec.tags.insert(spec.tags.begin(), tags.begin(), tags.end());
        spec.variant_group = name;
        spec.variant_point = case_pointer;
        spec.variant_baseline = k == 0;
        cases.push_back(std::move(spec));
      }
    }
  }
}

} // namespace

std::vector<CaseSpec> load_json(const std::string& path) {
  std::string error;
  std::optional<Json> parsed = core::parse_json(read_config_file(path), &error);
  if (!parsed)
    throw ConfigError(path + ": " + error);
  const Json document = std::move(*parsed);
  std::vector<CaseSpec> cases;
  if (!document.is_object()) {
    if (!document.is_array())
      throw ConfigError(path + ":/: expected a list of operators");
    read_operators(document, path, "", cases);
    return cases;
  }
  check_keys(
      document,
      {"operators", "variants", "description", "model", "exported", "sample_cases", "libraries"},
      path);
  if (!document.contains("operators") && !document.contains("variants")) {
    throw ConfigError(path + ": expected a top-level key 'operators' with a list of operators "
                             "(or 'variants')");
  }
  if (document.contains("operators")) {
    if (!document["operators"].is_array())
      throw ConfigError(path + ":/operators: expected a list of operators");
    read_operators(document["operators"], path, "/operators", cases);
  }
  if (document.contains("variants"))
    read_variants(document["variants"], path, cases);
  const auto libraries = libraries_member(document, path);
  for (auto& spec : cases)
    spec.libraries = libraries;
  return cases;
}

} // namespace opbench::config
