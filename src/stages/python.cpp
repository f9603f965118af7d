#include "opbench/stages/python.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "opbench/core/strings.hpp"

namespace opbench::stages {

std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (const char ch : text)
    out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string compiler_python() {
  const char* chosen = std::getenv("OPBENCH_PYTHON");
  return chosen != nullptr && *chosen != '\0' ? chosen : OPBENCH_DEFAULT_PYTHON;
}

std::string release_of(const std::string& version) {
  return version.substr(0, version.find('+'));
}

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

} // namespace opbench::stages
