#pragma once
// Files and directories through POSIX calls. The rule, and why it lives here: nothing in opbench
// (src/, samples/, tests/, bench/) uses std::filesystem. PyTorch wheels export copies of
// libstdc++'s std::filesystem symbols from libtorch (pytorch/pytorch#133437, #134494); a program
// linking LibTorch can bind its own std::filesystem calls to those copies, which crash with some
// wheels (2.11: SIGSEGV in remove_all). These few POSIX wrappers are all opbench needs.
// Checked by the test `lint.no_std_filesystem` (tests/CMakeLists.txt) and, for every std::
// symbol the tests import, by LibTorchSymbols.StdResolvesToLibstdcxx (tests/unit/core).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace opbench::core {

bool path_exists(const std::string& path);
bool is_directory(const std::string& path);
bool is_regular_file(const std::string& path);
// Full paths of the entries of `directory` (no "." and ".."), sorted; throws Error when it
// cannot be read.
std::vector<std::string> list_directory(const std::string& directory);
// Like `mkdir -p`; throws Error naming the directory and the reason.
void create_directories(const std::string& path);
// Removes `path` and everything under it (links are removed, never followed); no error when
// it does not exist. Returns false when something could not be removed.
bool remove_all(const std::string& path);
// A fresh directory under $TMPDIR (or /tmp) named `prefix` + random letters.
std::string make_temp_directory(const std::string& prefix);
// Last modification time in nanoseconds since the epoch; -1 when there is no such file.
std::int64_t modified_ns(const std::string& path);
// "a/b/c.json" -> "c.json"; "a/b/" -> "b".
std::string filename(const std::string& path);
// "a/b/c.json" -> "a/b"; "c.json" -> ""; "/c" -> "/".
std::string parent_path(const std::string& path);
// "a" + "b" -> "a/b" (one slash between them).
std::string join_path(const std::string& directory, const std::string& name);
// The absolute, symlink-free path of an existing `path` (realpath(3)); throws Error naming it.
std::string absolute_path(const std::string& path);
// `path` as seen from `directory`, both absolute and normalised (as absolute_path gives them):
// "/a/b/c.json" from "/a/d" -> "../b/c.json"; from "/a/b" -> "c.json". A relative input is
// returned unchanged.
std::string relative_path(const std::string& path, const std::string& directory);

// The most read_file reads: 4 GiB (a result file of the whole default suite is about 40 MiB).
inline constexpr std::size_t k_max_read_bytes = std::size_t{4} << 30;

// The whole of the regular file `path`; throws Error naming it and the OS's reason ("No such file
// or directory", "Is a directory", "Permission denied"), or that it is no regular file (a FIFO, a
// device: /dev/zero would be read forever) or larger than k_max_read_bytes.
std::string read_file(const std::string& path);

// "PATH: WHAT (the OS's reason for errno)", e.g. "out.json: cannot write (No space left on
// device)": the one shape of an error about a file.
std::string os_error(const std::string& path, const std::string& what, int error_number);

// Writes `text` to `path` through a temp file in the same directory, fsync and rename, so a
// reader sees the old file or the whole new one. Every step is checked (write, fsync, close,
// rename: on NFS or over a quota a short file can show only at fsync or close); throws
// ResultsError naming the file and the OS's reason, and leaves no temp file behind.
void write_atomically(const std::string& path, const std::string& text);

} // namespace opbench::core
