// What the compiling stages keep in the cache (compiled_artifacts.hpp).
#include "compiled_artifacts.hpp"

#include <signal.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/version.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/log.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/stages/cache_dir.hpp"

namespace opbench::stages {

std::string hex_hash(const std::string& text) {
  char name[17];
  std::snprintf(name, sizeof name, "%016llx",
                static_cast<unsigned long long>(core::stable_hash(text)));
  return name;
}

std::string input_signature(const at::Tensor& t, bool sizes) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict) on the chained temporaries here.
  std::string text = c10::toString(t.scalar_type());
  text += ' ';
  text += t.device().str();
  text += ' ';
  if (!sizes)
    return text + std::to_string(t.dim());
  text += c10::str(t.sizes());
  text += ' ';
  text += c10::str(t.strides());
  return text;
}

std::string artifact_key(const results::Case& c, torch::jit::Graph& graph,
                         const std::vector<at::Tensor>& inputs, bool dynamic) {
  std::string key;
  if (dynamic) {
    Json parameters = c.given;
    if (parameters.is_object())
      parameters.erase("sizes");
    key = "dynamic\n" + c.name + "\n" + parameters.dump() + "\nLibTorch " + TORCH_VERSION;
  } else {
    key = c.case_id + "\n" + graph.toString() + "\nLibTorch " + TORCH_VERSION;
  }
  for (const at::Tensor& t : inputs) {
    key += '\n'; // appended piece by piece: GCC 12 warns on "\n" + a temporary
    key += input_signature(t, !dynamic);
  }
  return key;
}

namespace {

// "fnv1a64:<16 hex digits>" of the file's bytes.
std::string digest_of(const std::string& text) {
  return "fnv1a64:" + hex_hash(text);
}

} // namespace

bool publish(const std::string& own, const std::string& path, Json about) {
  try {
    const std::string bytes = core::read_file(own);
    about["digest"] = digest_of(bytes);
    about["bytes"] = bytes.size();
  } catch (const std::exception&) {
    // unread: published without a digest, so never loaded from the cache (verified)
  }
  // link() makes the name only where none is (rename would replace another's file).
  const bool mine = ::link(own.c_str(), path.c_str()) == 0;
  std::remove(own.c_str());
  if (mine) {
    try {
      core::write_atomically(path + ".json", about.dump() + "\n");
    } catch (const std::exception&) {
      // a read-only place: readers know nothing of the file, as of one made before sidecars
    }
  }
  return mine;
}

bool verified(const std::string& path) {
  static std::map<std::string, std::pair<std::int64_t, bool>> known; // path -> (mtime, verdict)
  static std::mutex guard;
  const std::lock_guard<std::mutex> lock(guard);
  const std::int64_t modified = core::modified_ns(path);
  if (const auto it = known.find(path); it != known.end() && it->second.first == modified)
    return it->second.second;
  const Json about = read_sidecar(path);
  bool ok = false;
  try {
    const std::string bytes = core::read_file(path);
    ok = about.contains("digest") && about["digest"].is_string() &&
         about["digest"].get<std::string>() == digest_of(bytes) &&
         about.value("bytes", Json()) == Json(bytes.size());
  } catch (const std::exception&) {
    ok = false;
  }
  known[path] = {modified, ok};
  return ok;
}

void discard(const std::string& path) {
  std::remove(path.c_str());
  std::remove((path + ".json").c_str());
  const std::string probes = core::filename(path) + ".probe-";
  for (const std::string& file : core::list_directory(core::parent_path(path))) {
    if (core::starts_with(core::filename(file), probes))
      std::remove(file.c_str());
  }
}

void remove_orphans(const std::string& dir) {
  for (const std::string& file : core::list_directory(dir)) {
    const std::vector<std::string> fields = core::split(core::filename(file), '.');
    // The pid's field: after the hash, or after a probe's name.
    const std::size_t at =
        fields.size() > 3 && fields[1] == "pt2" && core::starts_with(fields[2], "probe-") ? 3 : 1;
    if (fields.size() <= at + 1)
      continue;
    const std::string& pid = fields[at];
    if (pid.empty() || pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos)
      continue;
    if (::kill(std::stoi(pid), 0) != 0 && errno == ESRCH)
      core::remove_all(file);
  }
}

std::optional<double> sidecar_seconds(const Json& about, const char* key) {
  if (!about.contains(key) || !about[key].is_number())
    return std::nullopt;
  const double seconds = about[key].get<double>();
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 86400)
    return std::nullopt;
  return seconds;
}

Json read_sidecar(const std::string& path) {
  try {
    Json about = Json::parse(core::read_file(path + ".json"));
    if (about.is_object())
      return about;
  } catch (const std::exception&) {
    // not there, or written by half
  }
  return Json::object();
}

void save_trace(torch::jit::Graph& graph, const std::string& path) {
  torch::jit::Module module("__torch__.opbench.Case");
  auto forward = graph.copy();
  forward->insertInput(0, "self")->setType(module._ivalue()->type());
  auto* function = module._ivalue()->compilation_unit()->create_function(
      c10::QualifiedName(*module.type()->name(), "forward"), forward);
  module.type()->addMethod(function);
  module.save(path);
}

// The trace file at `path` made into a function: forward's graph without its unused `self`.
static std::shared_ptr<torch::jit::GraphFunction> function_of(const std::string& path) {
  torch::jit::Module module = torch::jit::load(path);
  std::shared_ptr<torch::jit::Graph> graph = module.get_method("forward").graph()->copy();
  if (graph->inputs().empty() || graph->inputs()[0]->hasUses())
    throw Error("stage script-dynamic: " + path + " is not a trace opbench saved");
  graph->eraseInput(0);
  return std::make_shared<torch::jit::GraphFunction>("opbench_script_dynamic", graph, nullptr);
}

// What the sidecar of the trace at `path` says it was traced from; where it is not known:
// traced_from "", which every size is checked against.
static SharedScript read_about(const std::string& path, SharedScript shared) {
  const Json about = read_sidecar(path);
  shared.traced_from = about.value("traced_from", std::string());
  shared.traced_in = sidecar_seconds(about, "traced_in").value_or(shared.traced_in);
  return shared;
}

SharedScript shared_script(const results::Case& c, torch::jit::Graph& graph,
                           const std::vector<at::Tensor>& inputs, double traced_in) {
  static std::map<std::string, SharedScript> made; // this process's functions, by file
  static std::mutex guard;
  const std::lock_guard<std::mutex> lock(guard);
  const std::string dir = cache_dir() + "/script";
  const std::string path = dir + "/" + hex_hash(artifact_key(c, graph, inputs, true)) + ".pt";
  if (const auto it = made.find(path); it != made.end())
    return it->second;
  core::create_directories(dir);
  SharedScript shared{nullptr, c.case_id, traced_in};
  // A cached trace that is not the one saved (cut short, corrupted, from before digests) is
  // traced again; so is one that does not load.
  if (core::path_exists(path) && verified(path)) {
    shared = read_about(path, shared);
    try {
      shared.function = function_of(path);
      return made[path] = shared;
    } catch (const std::exception& e) {
      core::log_warn(path + ": the cached trace does not load (" + core::first_line(e.what()) +
                     "): traced again");
    }
  }
  if (core::path_exists(path))
    discard(path);
  // Another process may save the same trace at the same time: each saves its own file, and
  // the first one published stays.
  shared = SharedScript{nullptr, c.case_id, traced_in};
  const std::string own = path + "." + std::to_string(::getpid()) + ".pt";
  save_trace(graph, own);
  if (!publish(own, path, Json{{"traced_from", c.case_id}, {"traced_in", traced_in}}))
    shared = read_about(path, shared);
  shared.function = function_of(path);
  return made[path] = shared;
}

} // namespace opbench::stages
