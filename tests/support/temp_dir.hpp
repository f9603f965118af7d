#pragma once
// A temporary directory that removes itself, and a helper to write files into it.

#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "opbench/core/files.hpp"
#include <string>

namespace opbench::testing {

class TempDir {
public:
  TempDir() { m_path = core::make_temp_directory("opbench-test-"); }
  ~TempDir() { core::remove_all(m_path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return m_path; }
  std::string file(const std::string& name) const { return m_path + "/" + name; }

  // Writes `text` to `name` inside the directory and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = file(name);
    core::create_directories(core::parent_path(p));
    std::ofstream(p) << text;
    return p;
  }

private:
  std::string m_path;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

} // namespace opbench::testing
