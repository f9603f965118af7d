#pragma once
// The fuzzers' one helper: opbench's readers take paths, so each input is written to a file of
// its own (in memory: memfd_create) and read back through /proc/self/fd. A reader must either
// return or throw opbench::Error (a clean message naming the file); anything else, a crash, a
// sanitizer report, a leak or a hang, is a finding.

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace opbench::fuzz {

class InputFile {
public:
  InputFile(const std::uint8_t* data, std::size_t size, const char* suffix) {
    m_fd = ::memfd_create("opbench-fuzz", 0);
    if (m_fd < 0)
      std::abort();
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::write(m_fd, data + done, size - done);
      if (n <= 0)
        std::abort();
      done += static_cast<std::size_t>(n);
    }
    // The readers pick the format by the file name's ending: a link in /tmp with that ending
    // (one per process) points at the in-memory file.
    m_link = "/tmp/opbench-fuzz-" + std::to_string(::getpid()) + suffix;
    ::unlink(m_link.c_str());
    if (::symlink(("/proc/self/fd/" + std::to_string(m_fd)).c_str(), m_link.c_str()) != 0)
      std::abort();
  }
  ~InputFile() {
    ::unlink(m_link.c_str());
    ::close(m_fd);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return m_link; }

private:
  int m_fd = -1;
  std::string m_link;
};

} // namespace opbench::fuzz
