#include "opbench/core/files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "opbench/core/error.hpp"

namespace opbench::core {
namespace {

bool stat_of(const std::string& path, struct stat& st) {
  return ::stat(path.c_str(), &st) == 0;
}

} // namespace

bool path_exists(const std::string& path) {
  struct stat st {};
  return stat_of(path, st);
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return stat_of(path, st) && S_ISDIR(st.st_mode);
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return stat_of(path, st) && S_ISREG(st.st_mode);
}

std::vector<std::string> list_directory(const std::string& directory) {
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr)
    throw Error(directory + ": cannot read the directory (" + std::strerror(errno) + ")");
  std::vector<std::string> out;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..")
      out.push_back(join_path(directory, name));
  }
  ::closedir(dir);
  std::sort(out.begin(), out.end());
  return out;
}

void create_directories(const std::string& path) {
  if (path.empty() || is_directory(path))
    return;
  const std::string parent = parent_path(path);
  if (!parent.empty() && parent != path)
    create_directories(parent);
  if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST) {
    throw Error(path + ": cannot create directory (" + std::strerror(errno) + ")");
  }
}

bool remove_all(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0)
    return errno == ENOENT;
  if (!S_ISDIR(st.st_mode))
    return ::unlink(path.c_str()) == 0;
  // Children first (FTW_DEPTH), links not followed (FTW_PHYS).
  auto remove_one = [](const char* p, const struct stat*, int, struct FTW*) -> int {
    return ::remove(p);
  };
  return ::nftw(path.c_str(), remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0;
}

std::string make_temp_directory(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = join_path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", prefix + "XXXXXX");
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw Error(pattern + ": cannot create a temporary directory (" + std::strerror(errno) + ")");
  }
  return pattern;
}

std::int64_t modified_ns(const std::string& path) {
  struct stat st {};
  if (!stat_of(path, st))
    return -1;
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

std::string filename(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/')
    p.pop_back();
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string parent_path(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/')
    p.pop_back();
  const auto slash = p.rfind('/');
  if (slash == std::string::npos)
    return "";
  if (slash == 0)
    return "/";
  return p.substr(0, slash);
}

std::string absolute_path(const std::string& path) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (real == nullptr)
    throw Error(path + ": " + std::strerror(errno));
  std::string out(real);
  std::free(real);
  return out;
}

std::string relative_path(const std::string& path, const std::string& directory) {
  if (path.empty() || path.front() != '/' || directory.empty() || directory.front() != '/')
    return path;
  auto parts = [](const std::string& p) {
    std::vector<std::string> out;
    std::size_t begin = 0;
    while (begin <= p.size()) {
      const std::size_t end = std::min(p.find('/', begin), p.size());
      if (end > begin)
        out.push_back(p.substr(begin, end - begin));
      begin = end + 1;
    }
    return out;
  };
  const auto target = parts(path), base = parts(directory);
  std::size_t common = 0;
  while (common < target.size() && common < base.size() && target[common] == base[common])
    ++common;
  std::string out;
  for (std::size_t i = common; i < base.size(); ++i)
    out += "../";
  for (std::size_t i = common; i < target.size(); ++i)
    out += target[i] + (i + 1 < target.size() ? "/" : "");
  return out.empty() ? "." : out;
}

std::string join_path(const std::string& directory, const std::string& name) {
  if (directory.empty())
    return name;
  return directory.back() == '/' ? directory + name : directory + "/" + name;
}

std::string os_error(const std::string& path, const std::string& what, int error_number) {
  return path + ": " + what + " (" + std::strerror(error_number) + ")";
}

std::string read_file(const std::string& path) {
  // O_NONBLOCK: a FIFO named as a file must not hold the open up; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw Error(os_error(path, "cannot open", errno));
  struct stat info {};
  if (::fstat(fd, &info) == 0 && !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode)) {
    ::close(fd);
    throw Error(path + ": not a regular file (" +
                (S_ISFIFO(info.st_mode)  ? "a FIFO"
                 : S_ISCHR(info.st_mode) ? "a character device"
                 : S_ISBLK(info.st_mode) ? "a block device"
                                         : "a socket") +
                "): opbench reads its inputs from files");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      const int saved = errno;
      ::close(fd);
      throw Error(os_error(path, "cannot read", saved));
    }
    if (n == 0)
      break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > k_max_read_bytes) {
      ::close(fd);
      throw Error(path + ": over " + std::to_string(k_max_read_bytes >> 20) +
                  " MiB, more than any input of opbench's holds: not read");
    }
  }
  ::close(fd);
  return text;
}

namespace {

// Writes all of `text` to `fd`; false with errno set when the OS refused.
bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

} // namespace

void write_atomically(const std::string& path, const std::string& text) {
  const std::string parent = parent_path(path);
  if (!parent.empty()) {
    try {
      create_directories(parent);
    } catch (const Error& e) {
      throw ResultsError(e.what());
    }
  }
  if (is_directory(path))
    throw ResultsError(path + ": is a directory; expected a file path");
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw ResultsError(os_error(temp, "cannot create file", errno));
  // The first step that fails names itself; the temp file goes, the old file stays.
  const char* failed = nullptr;
  int reason = 0;
  if (!write_all(fd, text)) {
    failed = "cannot write";
    reason = errno;
  } else if (::fsync(fd) != 0) {
    failed = "cannot write to disk (fsync)";
    reason = errno;
  }
  if (::close(fd) != 0 && failed == nullptr) {
    failed = "cannot close";
    reason = errno;
  }
  if (failed != nullptr) {
    ::unlink(temp.c_str());
    throw ResultsError(os_error(path, failed, reason));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    reason = errno;
    ::unlink(temp.c_str());
    throw ResultsError(os_error(path, "cannot rename the temp file into place", reason));
  }
}

} // namespace opbench::core
