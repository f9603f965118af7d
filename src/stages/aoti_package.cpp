// AOTInductor packages of a case's trace for the inductor stage (aoti_package.hpp).
#include "aoti_package.hpp"

#include <signal.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/version.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>

#include "compiled_artifacts.hpp"
#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"
#include "opbench/core/log.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/measure/holding.hpp"
#include "opbench/measure/workload.hpp"
#include "opbench/stages/cache_dir.hpp"

namespace opbench::stages {

using measure::Phase;

using measure::CompilerFailed;
using measure::hold_phase;
using measure::SkipCase;

// Where packages are kept between runs.
static std::string package_cache() {
  return cache_dir() + "/aoti";
}

static void save_inputs(const std::vector<at::Tensor>& inputs, const std::string& path) {
  std::vector<c10::IValue> values(inputs.begin(), inputs.end());
  const std::vector<char> bytes =
      torch::jit::pickle_save(c10::ivalue::Tuple::create(std::move(values)));
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

namespace {

// How scripts/aoti_compile.py ended: its exit code (-1 when a signal ended it) and its stderr.
struct ScriptRun {
  int code = 0;
  int signal = 0;
  std::string said;

  std::string how() const {
    return signal != 0 ? "signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")"
                       : "exit " + std::to_string(code);
  }
  // The reason: a C++ exception that ended the process says it on its "what():" line (a
  // generated kernel's failed check); else the script's last line.
  std::string last_line() const {
    const std::string marker = "what():";
    if (const auto at = said.find(marker); signal != 0 && at != std::string::npos)
      return core::trim(core::first_line(said.substr(at + marker.size())));
    const auto end = said.rfind('\n');
    return said.substr(end == std::string::npos ? 0 : end + 1);
  }
};

// scripts/aoti_compile.py with `arguments` (quoted already), its stderr kept in `errors`; with
// `tmpdir`, its TMPDIR. The held case is in its stage's compile meanwhile (holding.hpp: a limit
// of its own).
ScriptRun run_script(const std::string& arguments, const std::string& errors,
                     const std::string& tmpdir = "") {
  hold_phase(Phase::compile);
  struct BackToInputs {
    ~BackToInputs() { hold_phase(Phase::inputs); }
  } back;
  const std::string command = (tmpdir.empty() ? "" : "TMPDIR=" + shell_quoted(tmpdir) + " ") +
                              shell_quoted(compiler_python()) + " " +
                              shell_quoted(OPBENCH_AOTI_SCRIPT) + " " + arguments +
                              " >/dev/null 2>" + shell_quoted(errors);
  const int status = std::system(command.c_str());
  ScriptRun ran;
  if (WIFSIGNALED(status)) {
    ran.code = -1;
    ran.signal = WTERMSIG(status);
  } else {
    ran.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (ran.code > 128) { // the shell's word for a command a signal ended
      ran.signal = ran.code - 128;
      ran.code = -1;
    }
  }
  std::ifstream in(errors);
  ran.said =
      core::trim(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
  return ran;
}

// "12.3 MiB free" on the file system of `dir`.
std::string free_space(const std::string& dir) {
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0)
    return "free space unknown";
  const double bytes = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
  char text[64];
  std::snprintf(text, sizeof text, "%.1f MiB free", bytes / (1 << 20));
  return text;
}

// The package at `package` when the cache holds it whole; a package that is not the one its
// sidecar describes is discarded, to be compiled again.
std::optional<AotiPackage> from_cache(const std::string& package) {
  if (!core::path_exists(package))
    return std::nullopt;
  if (verified(package)) {
    // (what its sidecar does not say is not known: every other size of it is probed)
    const Json made = read_sidecar(package);
    return AotiPackage{package, made.value("compiled_for", std::string()),
                       sidecar_seconds(made, "compile_time"), true};
  }
  // Cut short, corrupted, swapped for another or made before digests: loading it could end
  // this process, so it is compiled again.
  core::log_warn(package + ": the cached package is not the one compiled (its digest or size "
                           "differs from its sidecar's): compiled again");
  discard(package);
  return std::nullopt;
}

} // namespace

// The package of `graph` on `inputs`: from the cache, else compiled into it (SkipCase when the
// trace cannot be exported, Error when the compiler fails).
AotiPackage aoti_package(const results::Case& c, torch::jit::Graph& graph,
                         const std::vector<at::Tensor>& inputs, bool dynamic) {
  const std::string key = artifact_key(c, graph, inputs, dynamic);
  const std::string dir = package_cache();
  core::create_directories(dir);
  const std::string base = dir + "/" + hex_hash(key);
  // Beside the package: what it was compiled from and how long that took.
  const std::string package = base + ".pt2";
  if (const std::optional<AotiPackage> cached = from_cache(package))
    return *cached;
  // This process's own files (another may compile the same package at the same time); the
  // package is renamed into place whole. The compiler wants the .pt2 ending.
  const std::string own = base + "." + std::to_string(::getpid());
  const std::string trace_path = own + ".trace.pt", inputs_path = own + ".inputs.pt",
                    errors = own + ".err";
  const std::string partial = own + ".pt2";
  remove_orphans(dir);
  try {
    save_trace(graph, trace_path);
    save_inputs(inputs, inputs_path);
  } catch (const std::exception& e) {
    for (const std::string& made : {trace_path, inputs_path})
      std::remove(made.c_str());
    throw Error(dir + ": cannot write the compiler's inputs (" + free_space(dir) +
                "): " + core::first_line(e.what()));
  }
  const auto start = std::chrono::steady_clock::now();
  const ScriptRun ran = run_script(shell_quoted(trace_path) + " " + shell_quoted(inputs_path) +
                                       " " + shell_quoted(partial) + (dynamic ? " --dynamic" : ""),
                                   errors);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (ran.code == 3)
    throw SkipCase("the trace cannot be exported: " + ran.last_line());
  if (ran.code != 0) {
    throw CompilerFailed("AOTInductor failed (" + ran.how() + "): " + ran.last_line(), ran.said);
  }
  // Another process may have compiled the same package meanwhile: the first one published stays,
  // and what it was compiled for is its sidecar's word, not this process's.
  const bool mine =
      publish(partial, package, Json{{"compile_time", took}, {"compiled_for", c.case_id}});
  for (const std::string& made : {trace_path, inputs_path, errors})
    std::remove(made.c_str());
  if (mine)
    return {package, c.case_id, took, false};
  return {package, read_sidecar(package).value("compiled_for", std::string()), took, false};
}

AotiPackage program_package(const std::string& program) {
  std::string bytes;
  try {
    bytes = core::read_file(program);
  } catch (const std::exception& e) {
    throw Error(core::first_line(e.what()));
  }
  const std::string dir = package_cache();
  core::create_directories(dir);
  const std::string base =
      dir + "/" + hex_hash("exported program\n" + hex_hash(bytes) + "\n" + TORCH_VERSION);
  const std::string package = base + ".pt2";
  if (const std::optional<AotiPackage> cached = from_cache(package))
    return *cached;
  const std::string own = base + "." + std::to_string(::getpid());
  const std::string partial = own + ".pt2", errors = own + ".err";
  remove_orphans(dir);
  const auto start = std::chrono::steady_clock::now();
  const ScriptRun ran =
      run_script("exported " + shell_quoted(program) + " " + shell_quoted(partial), errors);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::remove(errors.c_str());
  if (ran.code == 3)
    throw SkipCase(program + ": " + ran.last_line());
  if (ran.code != 0)
    throw CompilerFailed("AOTInductor failed (" + ran.how() + "): " + ran.last_line(), ran.said);
  publish(partial, package, Json{{"compile_time", took}, {"compiled_for", program}});
  return {package, program, took, false};
}

std::string aoti_probe(const AotiPackage& package, const std::vector<at::Tensor>& inputs) {
  std::string shapes;
  for (const at::Tensor& t : inputs)
    shapes += input_signature(t, true) + '\n';
  const std::string known = package.path + ".probe-" + hex_hash(shapes);
  if (core::path_exists(known)) {
    try {
      return Json::parse(core::read_file(known)).at("reason").get<std::string>();
    } catch (const std::exception&) {
      // written by half: probed again
    }
  }
  const std::string own = known + "." + std::to_string(::getpid());
  const std::string inputs_path = own + ".inputs.pt", errors = own + ".err";
  // LibTorch's loader unpacks the package into a folder under TMPDIR and removes it when the
  // loader is destroyed, which a probe that aborts never reaches: the folder is ours to remove.
  const std::string scratch = own + ".tmp";
  save_inputs(inputs, inputs_path);
  core::create_directories(scratch);
  const ScriptRun ran = run_script(
      "probe " + shell_quoted(package.path) + " " + shell_quoted(inputs_path), errors, scratch);
  core::remove_all(scratch);
  std::string reason;
  if (ran.signal != 0)
    reason = ran.last_line() + " (this ends the process that runs it: " + ran.how() + ")";
  else if (ran.code != 0)
    reason = ran.last_line();
  try {
    core::write_atomically(known, Json{{"reason", reason}}.dump() + "\n");
  } catch (const std::exception&) {
    // a read-only cache: probed again next time
  }
  for (const std::string& made : {inputs_path, errors})
    std::remove(made.c_str());
  return reason;
}

} // namespace opbench::stages
