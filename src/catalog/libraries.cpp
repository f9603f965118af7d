#include "opbench/catalog/libraries.hpp"

#include <ATen/core/dispatch/Dispatcher.h>
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <torch/headeronly/version.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
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

// Every operator's kernels as the dispatcher lists them (OperatorHandle::dumpState: one line per
// dispatch key, naming where its kernel was registered), by "name.overload": about 50 ms for
// LibTorch's 3,600 operators.
std::map<std::string, std::string> kernel_tables() {
  std::map<std::string, std::string> out;
  auto& dispatcher = c10::Dispatcher::singleton();
  for (const auto& name : dispatcher.getAllOpNames()) {
    if (const auto op = dispatcher.findOp(name))
      out.emplace(name.name + (name.overload_name.empty() ? "" : "." + name.overload_name),
                  op->dumpState());
  }
  return out;
}

// The dispatch keys whose lines differ between two dumps of one operator ("CPU", "CUDA").
std::vector<std::string> changed_keys(const std::string& before, const std::string& after) {
  auto lines = [](const std::string& text) {
    std::map<std::string, std::string> by_key;
    for (const std::string& line : core::split(text, '\n', true)) {
      const auto colon = line.find(": registered at");
      if (colon != std::string::npos)
        by_key[line.substr(0, colon)] = line;
    }
    return by_key;
  };
  const auto old_lines = lines(before);
  std::vector<std::string> keys;
  for (const auto& [key, line] : lines(after)) {
    const auto it = old_lines.find(key);
    if (it != old_lines.end() && it->second == line)
      continue;
    // The kernel it replaced is listed as "KEY (inactive)": the same key.
    std::string name = key.substr(0, key.find(" ("));
    if (std::find(keys.begin(), keys.end(), name) == keys.end())
      keys.push_back(name);
  }
  return keys;
}

// Why `path` cannot be a library file; "" when it is a regular file.
std::string not_a_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    return error == ENOENT  ? "no such file"
           : error == ELOOP ? "a loop of symbolic links"
                            : std::strerror(error);
  }
  if (S_ISDIR(info.st_mode))
    return "a directory, not a shared library";
  if (!S_ISREG(info.st_mode))
    return "not a regular file";
  return "";
}

// "myops::fast_gelu.out" -> "myops"; "" without a namespace.
std::string namespace_of(const std::string& op) {
  const auto colons = op.find("::");
  return colons == std::string::npos ? std::string() : op.substr(0, colons);
}

// What went wrong loading `path` in a forked copy of this process, "" when it loaded there: the
// copy's stderr (where std::terminate prints LibTorch's message) or how it ended. A copy that
// does not finish in `k_probe_s` is killed and taken as loaded, so a slow initialiser is no error.
// The copy says how the load went on its stderr, after whatever the library printed.
constexpr int k_probe_s = 60;
constexpr const char* k_loaded = "\nopbench-probe: loaded\n";
constexpr const char* k_failed = "\nopbench-probe: failed: ";
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
      const std::string said = k_failed + text;
      (void)!::write(STDERR_FILENO, said.data(), said.size());
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
    (void)!::write(STDERR_FILENO, k_loaded, std::strlen(k_loaded));
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string output;
  bool timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(k_probe_s);
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      ::kill(pid, SIGKILL);
      timed_out = true;
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
  // Loaded only when the copy said so and ended as the probe ends it: a library whose initialiser
  // calls exit(0) or _exit(3) ends the copy before either.
  const bool said_loaded = output.find(k_loaded) != std::string::npos;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && said_loaded)
    return "";
  if (timed_out)
    return "";
  // std::terminate's "what():  MESSAGE" line says it best; LibTorch's backtrace follows it.
  const auto what = output.find("what():");
  if (what != std::string::npos) {
    std::string message = core::trim(output.substr(what + 7));
    return message.substr(0, message.find('\n'));
  }
  if (const auto failed = output.find(k_failed); failed != std::string::npos) {
    // LibTorch's messages end in a backtrace after their first line.
    const std::string text = core::trim(output.substr(failed + std::strlen(k_failed)));
    const auto backtrace = text.find("\nException raised from");
    return core::trim(text.substr(0, backtrace));
  }
  const std::string first = core::trim(output.substr(0, output.find('\n')));
  const char* abbreviation = WIFSIGNALED(status) ? ::sigabbrev_np(WTERMSIG(status)) : nullptr;
  return (WIFSIGNALED(status)
              ? "its initialiser ended the process with " +
                    (abbreviation != nullptr ? "SIG" + std::string(abbreviation)
                                             : "signal " + std::to_string(WTERMSIG(status)))
              : "its initialiser ended the process with exit " +
                    std::to_string(WEXITSTATUS(status))) +
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
  if (const std::string why = not_a_file(path); !why.empty())
    throw ConfigError(prefix + why);
  const std::string absolute = core::absolute_path(path);
  for (const auto& loaded : libraries()) {
    if (loaded.path == absolute)
      return loaded;
  }
  if (const std::string error = probe(absolute); !error.empty())
    throw ConfigError(prefix + explained(error));
  const std::set<std::string> before = operator_names();
  const std::map<std::string, std::string> kernels_before = kernel_tables();
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
  // Kernels it registered for operators that were there before it: ATen's or another library's.
  for (const auto& [name, table] : kernel_tables()) {
    const auto it = kernels_before.find(name);
    if (it == kernels_before.end() || it->second == table)
      continue;
    const std::vector<std::string> keys = changed_keys(it->second, table);
    library.overrides.push_back(name + " (" + core::join(keys, ", ") + ")");
  }
  libraries().push_back(std::move(library));
  return libraries().back();
}

const std::vector<LoadedLibrary>& loaded_libraries() {
  return libraries();
}

std::string library_of(const std::string& op) {
  std::string name = op.find("::") == std::string::npos ? "aten::" + op : op;
  const auto dot = name.find('.', name.find("::") + 2);
  if (dot != std::string::npos)
    name = name.substr(0, dot);
  // The newest library that defines the operator or replaced one of its kernels.
  for (auto library = libraries().rbegin(); library != libraries().rend(); ++library) {
    if (std::find(library->operators.begin(), library->operators.end(), name) !=
        library->operators.end())
      return library->path;
    for (const std::string& overridden : library->overrides) {
      const std::string overridden_name = overridden.substr(0, overridden.find(' '));
      if (overridden_name.substr(0, overridden_name.find('.', overridden_name.find("::") + 2)) ==
          name)
        return library->path;
    }
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
