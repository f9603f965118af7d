#include "opbench/config/loader.hpp"

#include <csv.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "opbench/config/named_dims.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::config {

std::string CaseSpec::location() const {
  return pointer.empty() ? file + ":" + std::to_string(row) : file + ":" + pointer;
}

namespace {

std::string read_file(const std::string& path) {
  try {
    return core::read_file(path);
  } catch (const Error& e) {
    throw ConfigError(std::string(e.what()) + "; expected a config file");
  }
}

// Records of a CSV text with the line each record starts on, read with libcsv.
struct CsvRecord {
  int line = 0;
  std::vector<std::string> fields;
};

struct CsvState {
  std::vector<CsvRecord> records;
  CsvRecord current;
  int line = 0;
  bool in_record = false;
};

void on_field(void* data, std::size_t length, void* user) {
  auto* state = static_cast<CsvState*>(user);
  if (!state->in_record) {
    state->current.line = state->line;
    state->in_record = true;
  }
  state->current.fields.emplace_back(static_cast<const char*>(data), length);
}

void on_record(int /*terminator*/, void* user) {
  auto* state = static_cast<CsvState*>(user);
  if (!state->in_record)
    state->current.line = state->line;
  state->records.push_back(std::move(state->current));
  state->current = CsvRecord{};
  state->in_record = false;
}

std::vector<CsvRecord> parse_csv(const std::string& path, const std::string& text) {
  csv_parser parser;
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0) {
    throw ConfigError(path + ": cannot initialise the CSV parser");
  }
  CsvState state;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    ++state.line;
    const std::size_t chunk = end - start;
    if (csv_parse(&parser, text.data() + start, chunk, on_field, on_record, &state) != chunk) {
      const std::string message = csv_strerror(csv_error(&parser));
      csv_free(&parser);
      throw ConfigError(path + ":" + std::to_string(state.line) + ": malformed CSV (" + message +
                        ")");
    }
    start = end;
  }
  if (csv_fini(&parser, on_field, on_record, &state) != 0) {
    const std::string message = csv_strerror(csv_error(&parser));
    csv_free(&parser);
    throw ConfigError(path + ":" + std::to_string(state.line) + ": malformed CSV (" + message +
                      ")");
  }
  csv_free(&parser);
  return state.records;
}

std::vector<std::string> parse_tags(const std::string& text) {
  std::vector<std::string> tags;
  for (auto& piece : core::split(text, ' ', true)) {
    for (auto& tag : core::split(piece, ',', true))
      tags.push_back(core::trim(tag));
  }
  tags.erase(std::remove(tags.begin(), tags.end(), std::string()), tags.end());
  return tags;
}

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
    out.push_back(tag.get<std::string>());
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

} // namespace

Json parse_cell(const std::string& cell) {
  const std::string text = core::trim(cell);
  if (text.empty())
    return nullptr;
  std::optional<Json> value = core::parse_json(text);
  if (!value)
    return Json(text);
  return *value;
}

namespace {

// One case row of a CSV config; throws ConfigError naming the file and row.
CaseSpec case_of_row(const std::string& path, const std::vector<std::string>& columns,
                     const CsvRecord& record) {
  if (record.fields.size() != columns.size()) {
    throw ConfigError(path + ":" + std::to_string(record.line) + ": expected " +
                      std::to_string(columns.size()) + " fields (" + core::join(columns, ",") +
                      "), found " + std::to_string(record.fields.size()));
  }
  CaseSpec spec;
  spec.file = path;
  spec.row = record.line;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const std::string& column = columns[c];
    // A NUL inside a cell would silently cut the value where C strings end.
    if (record.fields[c].find('\0') != std::string::npos) {
      throw ConfigError(path + ":" + std::to_string(record.line) + ": column '" + column +
                        "' holds a NUL byte; expected text");
    }
    const std::string cell = core::trim(record.fields[c]);
    if (column == "op") {
      spec.op = cell;
    } else if (column == "shape_class") {
      spec.shape_class = cell;
    } else if (column == "source") {
      spec.source = cell;
    } else if (column == "category") {
      spec.category = cell;
    } else if (column == "tags") {
      spec.tags = parse_tags(cell);
    } else if (!cell.empty()) {
      spec.args[column] = parse_cell(cell);
    }
  }
  if (spec.op.empty()) {
    throw ConfigError(spec.location() + ": empty 'op' cell, expected an operator name");
  }
  return spec;
}

} // namespace

std::vector<CaseSpec> load_csv(const std::string& path) {
  const auto records = parse_csv(path, read_file(path));
  if (records.empty())
    throw ConfigError(path + ":1: empty CSV file, expected a header row");
  const CsvRecord& header = records.front();
  std::vector<std::string> columns;
  for (const auto& name : header.fields)
    columns.push_back(core::trim(name));
  if (std::find(columns.begin(), columns.end(), "op") == columns.end()) {
    throw ConfigError(path + ":" + std::to_string(header.line) +
                      ": missing column 'op' in the header (found: " + core::join(columns, ", ") +
                      ")");
  }
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].empty()) {
      throw ConfigError(path + ":" + std::to_string(header.line) + ": column " +
                        std::to_string(i + 1) + " of the header has no name");
    }
    if (std::count(columns.begin(), columns.end(), columns[i]) > 1) {
      throw ConfigError(path + ":" + std::to_string(header.line) + ": column '" + columns[i] +
                        "' appears twice in the header");
    }
  }

  std::vector<CaseSpec> cases;
  // Every bad row is said at once (one line each), not only the first.
  std::vector<std::string> errors;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& record = records[r];
    if (record.fields.size() == 1 && core::trim(record.fields[0]).empty())
      continue; // blank
    try {
      cases.push_back(case_of_row(path, columns, record));
    } catch (const ConfigError& e) {
      errors.emplace_back(e.what());
    }
  }
  if (!errors.empty())
    throw ConfigError(core::join(errors, "\n"));
  if (cases.empty()) {
    throw ConfigError(path + ":" + std::to_string(header.line) +
                      ": a header and no case rows; expected at least one row below the header");
  }
  return cases;
}

std::vector<CaseSpec> load_json(const std::string& path) {
  std::string error;
  std::optional<Json> parsed = core::parse_json(read_file(path), &error);
  if (!parsed)
    throw ConfigError(path + ": " + error);
  Json document = std::move(*parsed);
  std::vector<std::string> libraries;
  const Json* operators = &document;
  std::string base = "";
  if (document.is_object()) {
    check_keys(document, {"operators", "description", "model", "libraries"}, path);
    if (!document.contains("operators")) {
      throw ConfigError(path + ": expected a top-level key 'operators' with a list of operators");
    }
    if (document.contains("libraries")) {
      const Json& list = document["libraries"];
      if (!list.is_array())
        throw ConfigError(path + ":/libraries: expected a list of library paths");
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_string() || list[i].get<std::string>().empty()) {
          throw ConfigError(path + ":/libraries/" + std::to_string(i) +
                            ": expected a library path (a string, relative to the config)");
        }
        const std::string library = list[i].get<std::string>();
        libraries.push_back(
            library.front() == '/' ? library : core::join_path(core::parent_path(path), library));
      }
    }
    operators = &document["operators"];
    base = "/operators";
  }
  if (!operators->is_array()) {
    throw ConfigError(path + ":" + (base.empty() ? "/" : base) + ": expected a list of operators");
  }
  std::vector<CaseSpec> cases;
  for (std::size_t i = 0; i < operators->size(); ++i) {
    const Json& entry = (*operators)[i];
    const std::string where = path + ":" + base + "/" + std::to_string(i);
    if (!entry.is_object())
      throw ConfigError(where + ": expected an object with 'op' and 'cases'");
    check_keys(entry, {"op", "category", "tags", "cases", "description"}, where);
    const std::string op = string_member(entry, "op", where);
    if (op.empty())
      throw ConfigError(where + ": missing 'op', expected an operator name");
    const std::string category = string_member(entry, "category", where);
    const auto tags = tags_member(entry, where);
    if (!entry.contains("cases") || !entry["cases"].is_array() || entry["cases"].empty()) {
      throw ConfigError(where + ": 'cases' must be a non-empty list of cases");
    }
    const Json& list = entry["cases"];
    for (std::size_t c = 0; c < list.size(); ++c) {
      const Json& item = list[c];
      CaseSpec spec;
      spec.file = path;
      spec.row = static_cast<int>(cases.size() + 1);
      spec.pointer = base + "/" + std::to_string(i) + "/cases/" + std::to_string(c);
      const std::string case_where = spec.location();
      if (!item.is_object())
        throw ConfigError(case_where + ": expected an object with 'args'");
      check_keys(
          item,
          {"args", "shape_class", "source", "tags", "description", "count", "unsupported", "dims"},
          case_where);
      spec.op = op;
      spec.libraries = libraries;
      spec.category = category;
      spec.tags = tags;
      for (auto& tag : tags_member(item, case_where))
        spec.tags.push_back(tag);
      spec.shape_class = string_member(item, "shape_class", case_where);
      spec.source = string_member(item, "source", case_where);
      spec.unsupported = string_member(item, "unsupported", case_where);
      if (item.contains("count")) {
        if (!item["count"].is_number_integer() || item["count"].get<int>() < 1) {
          throw ConfigError(case_where + ": 'count' must be a positive integer");
        }
        spec.count = item["count"].get<int>();
      }
      if (item.contains("args")) {
        if (!item["args"].is_object()) {
          throw ConfigError(case_where + ": 'args' must be an object of argument name -> value");
        }
        for (const auto& arg : item["args"].items()) {
          if (!arg.value().is_null())
            spec.args[arg.key()] = arg.value();
        }
      }
      if (item.contains("dims"))
        spec.dims = dims_member(item["dims"], spec.args, case_where);
      cases.push_back(std::move(spec));
    }
  }
  return cases;
}

std::vector<CaseSpec> load_file(const std::string& path) {
  if (core::ends_with(path, ".csv"))
    return load_csv(path);
  if (core::ends_with(path, ".json"))
    return load_json(path);
  throw ConfigError(path + ": unknown config type, expected a .csv or .json file");
}

std::vector<std::string> config_files_in(const std::string& directory) {
  if (!core::is_directory(directory)) {
    throw ConfigError(directory + ": config directory does not exist");
  }
  std::vector<std::string> files;
  for (const std::string& name : core::list_directory(directory)) {
    if (core::is_regular_file(name) &&
        (core::ends_with(name, ".csv") || core::ends_with(name, ".json"))) {
      files.push_back(name);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

} // namespace opbench::config
