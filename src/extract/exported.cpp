// `opbench extract --exported PROGRAM.pt2` (extract.hpp): the program read by Python's
// torch.export.load in scripts/export_calls.py, its calls made config cases here.
#include <sys/wait.h>

#include <cstdio>
#include <functional>
#include <map>
#include <vector>

#include "opbench/catalog/binder.hpp"
#include "opbench/config/named_dims.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/extract/extract.hpp"
#include "opbench/stages/python.hpp"

namespace opbench::extract {
namespace {

// The script's JSON (stdout) and the last line it said (stderr), or Error.
Json read_program(const std::string& program, const std::string& record) {
  const std::string python = stages::compiler_python();
  const std::string dir = core::make_temp_directory("opbench-export");
  const std::string errors = dir + "/stderr.txt";
  const std::string command = stages::shell_quoted(python) + " " +
                              stages::shell_quoted(OPBENCH_EXPORT_SCRIPT) + " " +
                              stages::shell_quoted(program) +
                              (record.empty() ? "" : " --record " + stages::shell_quoted(record)) +
                              " 2>" + stages::shell_quoted(errors);
  std::string out;
  int status = -1;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
      out.append(buffer, got);
    status = ::pclose(pipe);
  }
  std::string said;
  try {
    said = core::trim(core::read_file(errors));
  } catch (const Error&) {
  }
  core::remove_all(dir);
  const auto last = said.rfind('\n');
  const std::string reason = said.substr(last == std::string::npos ? 0 : last + 1);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
      throw Error(reason);
    throw Error(program + ": " + python + " " + OPBENCH_EXPORT_SCRIPT +
                " did not read it (set OPBENCH_PYTHON to a Python with this LibTorch's torch)" +
                (reason.empty() ? "" : ": " + reason));
  }
  std::string error;
  const std::optional<Json> json = core::parse_json(out, &error);
  if (!json || !json->is_object())
    throw Error(program + ": " + OPBENCH_EXPORT_SCRIPT + " printed no JSON object (" + error + ")");
  return *json;
}

} // namespace

Extraction extract_exported(const std::string& program, const std::string& record) {
  const Json read = read_program(program, record);
  Extraction out;
  out.exported = program;
  out.torch_version = read.value("torch", std::string());
  out.program_dims = read.value("dims", Json::object());
  out.program_inputs = read.value("inputs", Json::array());
  out.recorded = read.value("recorded", Json::array());
  for (const auto& line : read.value("left_out", Json::array()))
    out.left_out.push_back(line.get<std::string>());
  std::map<std::string, std::size_t> index;
  for (const Json& call : read.value("calls", Json::array())) {
    ++out.total_calls;
    const std::string node = call.value("node", std::string());
    RecordedCall recorded;
    recorded.op = call.value("op", std::string());
    recorded.args = call.value("args", Json::object());
    recorded.unsupported = call.value("unsupported", std::string());
    std::map<std::string, std::int64_t> sizes;
    for (const Json& name : call.value("dims", Json::array())) {
      const std::string dim = name.get<std::string>();
      const Json example = out.program_dims.value(dim, Json::object()).value("example", Json());
      if (example.is_number_integer()) {
        sizes[dim] = example.get<std::int64_t>();
        recorded.dims[dim] = sizes[dim];
      }
    }
    const std::string key = recorded.op + " " + recorded.args.dump();
    if (auto it = index.find(key); it != index.end()) {
      ++out.calls[it->second].count;
      continue;
    }
    if (recorded.unsupported.empty()) {
      try {
        catalog::bind_case(recorded.op, config::with_dims(recorded.args, sizes, node), node);
      } catch (const ConfigError& e) {
        const std::string message = e.what();
        const auto colon = message.find(": ");
        recorded.unsupported = message.substr(colon == std::string::npos ? 0 : colon + 2);
      }
    }
    if (!recorded.unsupported.empty())
      recorded.unsupported = "node " + node + ": " + recorded.unsupported;
    index.emplace(key, out.calls.size());
    out.calls.push_back(std::move(recorded));
  }
  return out;
}

void rename_dims(Extraction& extraction, const std::map<std::string, std::string>& names) {
  Json& dims = extraction.program_dims;
  for (const auto& [from, to] : names) {
    if (!dims.contains(from)) {
      std::vector<std::string> known;
      for (const auto& item : dims.items())
        known.push_back(item.key());
      throw Error(extraction.exported + ": no dimension " + from +
                  " (the program's: " + (known.empty() ? "none" : core::join(known, ", ")) + ")");
    }
    if (!config::is_dim_name(to))
      throw Error(to + " is no dimension name: an upper-case letter, then letters, digits or '_', "
                       "never a lower-case 'x'");
    if (dims.contains(to))
      throw Error(extraction.exported + ": the dimension " + to + " is there already");
  }
  // A name stands alone as a string wherever the calls use it ({"shape": ["X_0", 64]}).
  std::function<void(Json&)> rename = [&](Json& value) {
    if (value.is_string()) {
      if (const auto it = names.find(value.get<std::string>()); it != names.end())
        value = it->second;
    } else if (value.is_array() || value.is_object()) {
      for (auto& item : value)
        rename(item);
    }
  };
  Json renamed = Json::object();
  for (const auto& item : dims.items()) {
    const auto it = names.find(item.key());
    renamed[it == names.end() ? item.key() : it->second] = item.value();
  }
  dims = renamed;
  for (auto& input : extraction.program_inputs)
    rename(input["shape"]);
  for (auto& call : extraction.recorded) {
    Json sizes = Json::object();
    for (const auto& item : call["sizes"].items()) {
      const auto it = names.find(item.key());
      sizes[it == names.end() ? item.key() : it->second] = item.value();
    }
    call["sizes"] = sizes;
  }
  for (auto& call : extraction.calls) {
    rename(call.args);
    Json sizes = Json::object();
    for (const auto& item : call.dims.items()) {
      const auto it = names.find(item.key());
      sizes[it == names.end() ? item.key() : it->second] = item.value();
    }
    call.dims = sizes;
  }
}

std::string sizes_text(const Extraction& extraction, const std::string& inputs) {
  std::string text = "# The sizes of " + core::filename(extraction.exported) +
                     "'s dimensions in each call of " + core::filename(inputs) +
                     ", in order (opbench extract --record-sizes): opbench replay --sizes\n";
  int call = 0;
  for (const Json& recorded : extraction.recorded) {
    ++call;
    std::vector<std::string> pairs;
    for (const auto& item : recorded.at("sizes").items())
      pairs.push_back(item.key() + "=" + item.value().dump());
    const std::string line = core::join(pairs, " ");
    if (recorded.contains("refused")) {
      text += "# call " + std::to_string(call) + " (" + line +
              "): the program refuses it: " + recorded.at("refused").get<std::string>() + "\n";
    } else {
      text += line + "\n";
    }
  }
  return text;
}

} // namespace opbench::extract
