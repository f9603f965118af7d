// AOTInductor packages of a case's trace for the inductor stage (aoti_package.hpp).
#include "aoti_package.hpp"

#include <sys/wait.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/version.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>

#include "cache_dir.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/strings.hpp"
#include "workload.hpp"

namespace opbench::exec {

static std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (const char ch : text)
    out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// The Python whose torch compiles the packages: $OPBENCH_PYTHON, else the set-up's .venv.
std::string compiler_python() {
  const char* chosen = std::getenv("OPBENCH_PYTHON");
  return chosen != nullptr && *chosen != '\0' ? chosen : OPBENCH_DEFAULT_PYTHON;
}

// Where packages are kept between runs.
static std::string package_cache() {
  return cache_dir() + "/aoti";
}

// The version's release (`2.15.0` of `2.15.0+cu130`).
std::string release_of(const std::string& version) {
  return version.substr(0, version.find('+'));
}

// The torch version of `python` ("" when it does not run), asked once per process and Python.
std::string python_torch_version(const std::string& python) {
  static std::map<std::string, std::string> known;
  static std::mutex guard;
  const std::lock_guard<std::mutex> lock(guard);
  if (const auto it = known.find(python); it != known.end())
    return it->second;
  const std::string command =
      shell_quoted(python) + " " + shell_quoted(OPBENCH_AOTI_SCRIPT) + " version 2>/dev/null";
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr)
      out += buffer;
    if (::pclose(pipe) != 0)
      out.clear();
  }
  return known[python] = core::trim(out);
}

// The trace as a TorchScript module (forward = the graph, `self` first), which Python loads.
static void save_trace(torch::jit::Graph& graph, const std::string& path) {
  torch::jit::Module module("__torch__.opbench.Case");
  auto forward = graph.copy();
  forward->insertInput(0, "self")->setType(module._ivalue()->type());
  auto* function = module._ivalue()->compilation_unit()->create_function(
      c10::QualifiedName(*module.type()->name(), "forward"), forward);
  module.type()->addMethod(function);
  module.save(path);
}

// What names a package: the case and its trace at these inputs; for a dynamic one, the sample
// and its parameters (not its sizes) at these dtypes, devices and ranks.
static std::string package_key(const results::Case& c, torch::jit::Graph& graph,
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
    // Appended piece by piece: GCC 12 warns (-Wrestrict) on the chained temporaries here.
    key += '\n';
    key += c10::toString(t.scalar_type());
    key += ' ';
    key += t.device().str();
    key += ' ';
    if (dynamic) {
      key += std::to_string(t.dim());
      continue;
    }
    key += c10::str(t.sizes());
    key += ' ';
    key += c10::str(t.strides());
  }
  return key;
}

// The package of `graph` on `inputs`: from the cache, else compiled into it (SkipCase when the
// trace cannot be exported, Error when the compiler fails).
AotiPackage aoti_package(const results::Case& c, torch::jit::Graph& graph,
                         const std::vector<at::Tensor>& inputs, bool dynamic) {
  const std::string key = package_key(c, graph, inputs, dynamic);
  const std::string dir = package_cache();
  core::create_directories(dir);
  char name[17];
  std::snprintf(name, sizeof name, "%016llx",
                static_cast<unsigned long long>(core::stable_hash(key)));
  const std::string base = dir + "/" + name;
  // Beside the package: what it was compiled from and how long that took.
  const std::string package = base + ".pt2", about = package + ".json";
  if (core::path_exists(package)) {
    AotiPackage cached{package, "", std::nullopt, true};
    try {
      const Json made = Json::parse(core::read_file(about));
      cached.compile_time = made.at("compile_time").get<double>();
      cached.compiled_for = made.at("compiled_for").get<std::string>();
    } catch (const std::exception&) {
      // made before this was kept, or written by half: not known
    }
    return cached;
  }
  // This process's own files (another may compile the same package at the same time); the
  // package is renamed into place whole. The compiler wants the .pt2 ending.
  const std::string own = base + "." + std::to_string(::getpid());
  const std::string trace_path = own + ".trace.pt", inputs_path = own + ".inputs.pt",
                    errors = own + ".err";
  const std::string partial = own + ".pt2";
  save_trace(graph, trace_path);
  {
    std::vector<c10::IValue> values(inputs.begin(), inputs.end());
    const std::vector<char> bytes =
        torch::jit::pickle_save(c10::ivalue::Tuple::create(std::move(values)));
    std::ofstream(inputs_path, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  const std::string command =
      shell_quoted(compiler_python()) + " " + shell_quoted(OPBENCH_AOTI_SCRIPT) + " " +
      shell_quoted(trace_path) + " " + shell_quoted(inputs_path) + " " + shell_quoted(partial) +
      (dynamic ? " --dynamic" : "") + " >/dev/null 2>" + shell_quoted(errors);
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(errors);
  const std::string said =
      core::trim(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
  const std::string last =
      said.substr(said.rfind('\n') == std::string::npos ? 0 : said.rfind('\n') + 1);
  if (code == 3)
    throw SkipCase("the trace cannot be exported: " + last);
  if (code != 0) {
    throw CompilerFailed("AOTInductor failed (exit " + std::to_string(code) + "): " + last, said);
  }
  try { // before the package appears
    core::write_atomically(about,
                           Json{{"compile_time", took}, {"compiled_for", c.case_id}}.dump() + "\n");
  } catch (const std::exception&) {
    // a read-only cache: this is reported for this run only
  }
  std::rename(partial.c_str(), package.c_str());
  for (const std::string& made : {trace_path, inputs_path, errors})
    std::remove(made.c_str());
  return {package, c.case_id, took, false};
}

} // namespace opbench::exec
