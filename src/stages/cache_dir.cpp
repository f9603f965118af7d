// opbench's cache between runs, and the compilers' texts kept in it (cache_dir.hpp).
#include "opbench/stages/cache_dir.hpp"

#include <cstdlib>
#include <exception>

#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"

namespace opbench::stages {

std::string cache_dir() {
  const char* own = std::getenv("OPBENCH_CACHE_DIR");
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  return own != nullptr && *own != '\0'   ? std::string(own)
         : xdg != nullptr && *xdg != '\0' ? std::string(xdg) + "/opbench"
         : home != nullptr                ? std::string(home) + "/.cache/opbench"
                                          : std::string("/tmp/opbench-cache");
}

std::string keep_compiler_text(const std::string& case_id, const std::string& text) {
  const std::string dir = cache_dir() + "/failures";
  const std::string path = dir + "/" + core::file_name_of(case_id) + ".txt";
  try {
    core::create_directories(dir);
    core::write_atomically(path, text + "\n");
  } catch (const std::exception&) {
    return "";
  }
  return path;
}

} // namespace opbench::stages
