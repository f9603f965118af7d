// core/files: the POSIX file helpers that opbench uses instead of the standard filesystem library
// (see its header).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"

namespace opbench::core {
namespace {

TEST(Files, PathPieces) {
  EXPECT_EQ(filename("a/b/c.json"), "c.json");
  EXPECT_EQ(filename("a/b/"), "b");
  EXPECT_EQ(filename("c.json"), "c.json");
  EXPECT_EQ(parent_path("a/b/c.json"), "a/b");
  EXPECT_EQ(parent_path("c.json"), "");
  EXPECT_EQ(parent_path("/c"), "/");
  EXPECT_EQ(join_path("a", "b"), "a/b");
  EXPECT_EQ(join_path("a/", "b"), "a/b");
  EXPECT_EQ(join_path("", "b"), "b");
}

TEST(Files, RelativePathFromADirectory) {
  EXPECT_EQ(relative_path("/a/b/c.json", "/a/b"), "c.json");
  EXPECT_EQ(relative_path("/a/b/c.json", "/a/d"), "../b/c.json");
  EXPECT_EQ(relative_path("/a/b/c.json", "/x/y/z"), "../../../a/b/c.json");
  EXPECT_EQ(relative_path("/a/b/c.json", "/"), "a/b/c.json");
  EXPECT_EQ(relative_path("/a/b", "/a/b/"), ".");
  EXPECT_EQ(relative_path("/ab/c", "/a"), "../ab/c"); // a shared prefix is not a shared directory
  EXPECT_EQ(relative_path("c.json", "/a"), "c.json"); // relative already
}

TEST(Files, AbsolutePathOfAnExistingPathAndAnErrorNamingAMissingOne) {
  const std::string root = make_temp_directory("opbench-files-");
  create_directories(root + "/a/b");
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(::chdir(root.c_str()), 0);
  const std::string absolute = absolute_path("a/./b/..");
  ASSERT_EQ(::chdir(cwd), 0);
  EXPECT_EQ(absolute, absolute_path(root) + "/a");
  EXPECT_EQ(absolute.front(), '/');
  try {
    absolute_path(root + "/missing");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos);
  }
  remove_all(root);
}

TEST(Files, CreateListAndRemoveATree) {
  const std::string root = make_temp_directory("opbench-files-");
  ASSERT_TRUE(is_directory(root));
  create_directories(root + "/x/y/z");
  EXPECT_TRUE(is_directory(root + "/x/y/z"));
  create_directories(root + "/x/y/z"); // again: nothing to do, no error
  std::ofstream(root + "/x/b.txt") << "b";
  std::ofstream(root + "/x/a.txt") << "a";
  ASSERT_EQ(::symlink("/", (root + "/x/link").c_str()), 0); // removed, never followed
  EXPECT_EQ(list_directory(root + "/x"),
            (std::vector<std::string>{root + "/x/a.txt", root + "/x/b.txt", root + "/x/link",
                                      root + "/x/y"}));
  EXPECT_TRUE(is_regular_file(root + "/x/a.txt"));
  EXPECT_FALSE(is_regular_file(root + "/x"));
  EXPECT_GT(modified_ns(root + "/x/a.txt"), 0);
  EXPECT_EQ(modified_ns(root + "/nothing"), -1);
  EXPECT_THROW(list_directory(root + "/nothing"), Error);
  EXPECT_TRUE(remove_all(root));
  EXPECT_FALSE(path_exists(root));
  EXPECT_TRUE(remove_all(root)); // already gone: fine
  EXPECT_TRUE(path_exists("/"));
}

TEST(Files, CreateDirectoriesNamesWhatFailed) {
  const std::string root = make_temp_directory("opbench-files-");
  std::ofstream(root + "/file") << "x";
  try {
    create_directories(root + "/file/sub");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(root + "/file/sub: cannot create directory"),
              std::string::npos)
        << e.what();
  }
  remove_all(root);
}

// #47: errors about files name the file and the OS's reason; nothing is left half-written.
TEST(Files, ReadAndWriteErrorsNameTheFileAndTheReason) {
  const std::string dir = make_temp_directory("opbench-test-");
  try {
    read_file(dir);
    ADD_FAILURE() << "read a directory";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), dir + ": cannot read (Is a directory)");
  }
  try {
    read_file(dir + "/none.json");
    ADD_FAILURE() << "read a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), dir + "/none.json: cannot open (No such file or directory)");
  }
  try {
    write_atomically(dir, "x");
    ADD_FAILURE() << "replaced a directory";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  write_atomically(dir + "/a.json", "{}\n");
  EXPECT_EQ(read_file(dir + "/a.json"), "{}\n");
  EXPECT_EQ(list_directory(dir).size(), 1u); // no temp file left beside it
  remove_all(dir);
}

} // namespace
} // namespace opbench::core
