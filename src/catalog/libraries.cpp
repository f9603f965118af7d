#include "opbench/catalog/libraries.hpp"

#include <ATen/core/dispatch/Dispatcher.h>
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <torch/headeronly/version.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::catalog {
namespace {

std::vector<LoadedLibrary>& libraries() {
  static std::vector<LoadedLibrary> k_loaded;
  return k_loaded;
}

std::set<std::string> operator_names() {
  std::set<std::string> out;
  for (const auto& name : c10::Dispatcher::singleton().getAllOpNames())
    out.insert(name.name);
  return out;
}

// "myops::fast_gelu.out" -> "myops"; "" without a namespace.
std::string namespace_of(const std::string& op) {
  const auto colons = op.find("::");
  return colons == std::string::npos ? std::string() : op.substr(0, colons);
}

// What went wrong loading `path` in a forked copy of this process, "" when it loaded there: the
// copy's stderr (where std::terminate prints LibTorch's message) or how it ended. A copy that
// does not finish in `k_probe_s` is killed and taken as loaded, so a slow initialiser is no error.
constexpr int k_probe_s = 60;
std::string probe(const std::string& path) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0)
    return "";
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return "";
  }
  if (pid == 0) {
    ::close(pipe_fds[0]);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    auto fail = [](const std::string& text) {
      (void)!::write(STDERR_FILENO, text.data(), text.size());
      ::_exit(3);
    };
    try {
      // A static initialiser's exception may come through dlopen (or end in std::terminate).
      if (::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
        const char* error = ::dlerror();
        fail(error != nullptr ? error : "dlopen failed");
      }
    } catch (const std::exception& e) {
      fail(e.what());
    } catch (...) {
      fail("its initialisation threw");
    }
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(k_probe_s);
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd fd{pipe_fds[0], POLLIN, 0};
    if (::poll(&fd, 1, static_cast<int>(left)) <= 0)
      continue;
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n <= 0)
      break;
    if (output.size() < 65536)
      output.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return "";
  // std::terminate's "what():  MESSAGE" line says it best; LibTorch's backtrace follows it.
  const auto what = output.find("what():");
  if (what != std::string::npos) {
    std::string message = core::trim(output.substr(what + 7));
    return message.substr(0, message.find('\n'));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
    // LibTorch's messages end in a backtrace after their first line.
    const std::string text = core::trim(output);
    const auto backtrace = text.find("\nException raised from");
    return core::trim(text.substr(0, backtrace));
  }
  const std::string first = core::trim(output.substr(0, output.find('\n')));
  return (WIFSIGNALED(status)
              ? "it ended the process with signal " + std::to_string(WTERMSIG(status))
              : "it ended the process with exit " + std::to_string(WEXITSTATUS(status))) +
         (first.empty() ? "" : " (" + first + ")");
}

// The dynamic loader's message, with what it means when a LibTorch symbol is missing.
std::string explained(const std::string& error) {
  const bool torch_symbol = error.find("undefined symbol: _ZN3c10") != std::string::npos ||
                            error.find("undefined symbol: _ZN2at") != std::string::npos ||
                            error.find("undefined symbol: _ZN5torch") != std::string::npos ||
                            error.find("undefined symbol: _ZNK3c10") != std::string::npos;
  if (!torch_symbol)
    return error;
  return error + " (a LibTorch symbol this LibTorch, " + TORCH_VERSION +
         ", does not have: the library was built against another LibTorch; rebuild it against "
         "this one)";
}

} // namespace

const LoadedLibrary& load_library(const std::string& path, const std::string& where) {
  const std::string prefix =
      (where.empty() ? "" : where + ": ") + "cannot load operator library " + path + ": ";
  if (!core::is_regular_file(path))
    throw ConfigError(prefix + "no such file");
  const std::string absolute = core::absolute_path(path);
  for (const auto& loaded : libraries()) {
    if (loaded.path == absolute)
      return loaded;
  }
  if (const std::string error = probe(absolute); !error.empty())
    throw ConfigError(prefix + explained(error));
  const std::set<std::string> before = operator_names();
  void* handle = ::dlopen(absolute.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    throw ConfigError(prefix + explained(error != nullptr ? error : "dlopen failed"));
  }
  LoadedLibrary library;
  library.path = absolute;
  for (const auto& name : operator_names()) {
    if (before.count(name) == 0)
      library.operators.push_back(name);
  }
  libraries().push_back(std::move(library));
  return libraries().back();
}

const std::vector<LoadedLibrary>& loaded_libraries() {
  return libraries();
}

std::string library_of(const std::string& op) {
  std::string name = core::starts_with(op, "aten::") ? std::string() : op;
  if (name.empty())
    return "";
  const auto dot = name.find('.', name.find("::") == std::string::npos ? 0 : name.find("::") + 2);
  if (dot != std::string::npos)
    name = name.substr(0, dot);
  for (const auto& library : libraries()) {
    if (std::find(library.operators.begin(), library.operators.end(), name) !=
        library.operators.end())
      return library.path;
  }
  return "";
}

std::string missing_operator_hint(const std::string& op) {
  const std::string ns = namespace_of(op);
  if (ns.empty() || ns == "aten")
    return "";
  std::vector<std::string> same_namespace;
  std::vector<std::string> paths;
  for (const auto& library : libraries()) {
    for (const auto& name : library.operators) {
      if (namespace_of(name) == ns) {
        same_namespace.push_back(name);
        if (std::find(paths.begin(), paths.end(), library.path) == paths.end())
          paths.push_back(library.path);
      }
    }
  }
  if (same_namespace.empty()) {
    return "no loaded library defines namespace '" + ns +
           "': load the library with --load-library PATH or the config's \"libraries\"";
  }
  return core::join(paths, ", ") + " defines " + core::join(same_namespace, ", ");
}

} // namespace opbench::catalog
