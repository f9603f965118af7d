#include "opbench/config/loader.hpp"

#include "read.hpp"

#include <csv.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::config {

std::string CaseSpec::location() const {
  return pointer.empty() ? file + ":" + std::to_string(row) : file + ":" + pointer;
}

std::string read_config_file(const std::string& path) {
  try {
    return core::read_file(path);
  } catch (const Error& e) {
    throw ConfigError(std::string(e.what()) + "; expected a config file");
  }
}

namespace {

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
      tags.push_back(core::canonical_tag(tag));
  }
  tags.erase(std::remove(tags.begin(), tags.end(), std::string()), tags.end());
  return tags;
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
  const auto records = parse_csv(path, read_config_file(path));
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
