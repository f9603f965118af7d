// What the compiling stages keep in the cache (compiled_artifacts.hpp).
#include "compiled_artifacts.hpp"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/version.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <mutex>

#include "cache_dir.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::exec {

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

bool publish(const std::string& own, const std::string& path, const std::string& about) {
  // link() makes the name only where none is (rename would replace another's file).
  const bool mine = ::link(own.c_str(), path.c_str()) == 0;
  std::remove(own.c_str());
  if (mine) {
    try {
      core::write_atomically(path + ".json", about);
    } catch (const std::exception&) {
      // a read-only place: readers know nothing of the file, as of one made before sidecars
    }
  }
  return mine;
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
  shared.traced_in = about.value("traced_in", shared.traced_in);
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
  if (core::path_exists(path)) {
    shared = read_about(path, shared);
  } else {
    // Another process may save the same trace at the same time: each saves its own file, and
    // the first one published stays.
    const std::string own = path + "." + std::to_string(::getpid()) + ".pt";
    save_trace(graph, own);
    if (!publish(own, path,
                 Json{{"traced_from", c.case_id}, {"traced_in", traced_in}}.dump() + "\n")) {
      shared = read_about(path, shared);
    }
  }
  shared.function = function_of(path);
  return made[path] = shared;
}

} // namespace opbench::exec
