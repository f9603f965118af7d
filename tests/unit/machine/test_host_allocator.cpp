#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "opbench/core/error.hpp"
#include "opbench/machine/host_allocator.hpp"

namespace opbench::machine {
namespace {

// Restores the variables configure_host_allocator reads and sets as the test found them, and
// starts each test without them.
class HostAllocator : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char* name : k_names) {
      const char* v = std::getenv(name);
      m_saved.push_back(v == nullptr ? std::nullopt : std::optional<std::string>(v));
      unsetenv(name);
    }
  }
  void TearDown() override {
    for (std::size_t i = 0; i < m_saved.size(); ++i) {
      if (m_saved[i]) {
        setenv(k_names[i], m_saved[i]->c_str(), 1);
      } else {
        unsetenv(k_names[i]);
      }
    }
  }

private:
  static constexpr const char* k_names[] = {"THP_MEM_ALLOC_ENABLE", "LD_PRELOAD", "MALLOC_CONF",
                                            "OPBENCH_JEMALLOC", "GLIBC_TUNABLES"};
  std::vector<std::optional<std::string>> m_saved;
};

// A file that exists and is no jemalloc: this test binary itself.
std::string a_file_that_is_no_jemalloc() {
  return "/proc/self/exe";
}

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Touches every page of a fresh block of `bytes`, frees it and returns the page faults taken.
long faults_of_a_touched_block(std::size_t bytes) {
  const long before = minor_faults();
  void* block = std::malloc(bytes);
  EXPECT_NE(block, nullptr);
  std::memset(block, 1, bytes);
  // The compiler may drop a block that is written and freed unread: this keeps the writes.
  asm volatile("" : : "r"(block) : "memory");
  const long faults = minor_faults() - before;
  std::free(block);
  return faults;
}

// glibc maps a block over its largest mmap threshold (32 MiB) afresh on every malloc: 16,384 page
// faults for 64 MiB of 4 KiB pages (32 with huge pages) on every call of an operator with such an
// output. Tuned, the block comes from the heap and stays there after free.
TEST_F(HostAllocator, GlibcServesABlockOver32MiBFromTheHeapWithoutFaultingItInAgain) {
  configure_host_allocator("glibc");
  constexpr std::size_t bytes = std::size_t{64} << 20;
  const long first = faults_of_a_touched_block(bytes);
  const long second = faults_of_a_touched_block(bytes);
  EXPECT_LE(second, 2) << "first touch " << first << " faults, second " << second;
}

TEST_F(HostAllocator, GlibcAsksLibTorchForHugePagesAndSaysSo) {
  const std::string text = configure_host_allocator("glibc");
  ASSERT_NE(std::getenv("THP_MEM_ALLOC_ENABLE"), nullptr);
  EXPECT_EQ(std::string(std::getenv("THP_MEM_ALLOC_ENABLE")), "1");
  EXPECT_NE(text.find("M_MMAP_MAX=0 M_MMAP_THRESHOLD=33554432"), std::string::npos) << text;
  EXPECT_NE(text.find("THP_MEM_ALLOC_ENABLE=1"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel THP "), std::string::npos) << text;
}

TEST_F(HostAllocator, AUsersOwnSettingStaysAndSystemSetsNothing) {
  setenv("THP_MEM_ALLOC_ENABLE", "0", 1);
  const std::string tuned = configure_host_allocator("glibc");
  EXPECT_EQ(std::string(std::getenv("THP_MEM_ALLOC_ENABLE")), "0");
  EXPECT_NE(tuned.find("huge pages: no (THP_MEM_ALLOC_ENABLE=0"), std::string::npos) << tuned;
  unsetenv("THP_MEM_ALLOC_ENABLE");
  const std::string system = configure_host_allocator("system");
  EXPECT_EQ(std::getenv("THP_MEM_ALLOC_ENABLE"), nullptr);
  EXPECT_NE(system.find("THP_MEM_ALLOC_ENABLE=unset"), std::string::npos) << system;
  EXPECT_THROW(configure_host_allocator("fast"), UsageError);
}

TEST_F(HostAllocator, AUsersOwnMmapMaxTunableStays) {
  setenv("GLIBC_TUNABLES", "glibc.malloc.check=0:glibc.malloc.mmap_max=65536", 1);
  const std::string text = configure_host_allocator("glibc");
  unsetenv("GLIBC_TUNABLES");
  EXPECT_NE(text.find("M_MMAP_MAX from GLIBC_TUNABLES M_MMAP_THRESHOLD=33554432"),
            std::string::npos)
      << text;
  EXPECT_EQ(configure_host_allocator("glibc").find("M_MMAP_MAX from"), std::string::npos);
}

// The test binary runs on glibc's malloc: "tuned" there is a supervising process, which hands
// jemalloc on to the processes it starts, through their environment.
TEST_F(HostAllocator, TunedHandsJemallocOnToTheMeasuringProcesses) {
  ASSERT_FALSE(jemalloc_active());
  setenv("OPBENCH_JEMALLOC", a_file_that_is_no_jemalloc().c_str(), 1);
  const std::string text = configure_host_allocator("tuned");
  ASSERT_NE(std::getenv("LD_PRELOAD"), nullptr);
  EXPECT_EQ(std::string(std::getenv("LD_PRELOAD")), a_file_that_is_no_jemalloc());
  EXPECT_EQ(std::string(std::getenv("MALLOC_CONF")), k_jemalloc_conf);
  EXPECT_EQ(std::string(std::getenv("THP_MEM_ALLOC_ENABLE")), "0");
  EXPECT_EQ(text.find("jemalloc " + a_file_that_is_no_jemalloc() +
                      " preloaded into the measuring processes, MALLOC_CONF=" + k_jemalloc_conf),
            0u)
      << text;
  // Started with that environment, a process whose malloc is not jemalloc's refuses to measure.
  EXPECT_THROW(configure_host_allocator("tuned"), Error);
}

TEST_F(HostAllocator, TunedKeepsTheUsersOwnSettingsAndFallsBackToGlibcWithoutJemalloc) {
  setenv("OPBENCH_JEMALLOC", a_file_that_is_no_jemalloc().c_str(), 1);
  setenv("MALLOC_CONF", "narenas:1", 1);
  setenv("THP_MEM_ALLOC_ENABLE", "1", 1);
  configure_host_allocator("tuned");
  EXPECT_EQ(std::string(std::getenv("MALLOC_CONF")), "narenas:1");
  EXPECT_EQ(std::string(std::getenv("THP_MEM_ALLOC_ENABLE")), "1");

  unsetenv("LD_PRELOAD");
  setenv("OPBENCH_JEMALLOC", "none", 1);
  const std::string none = configure_host_allocator("tuned");
  EXPECT_EQ(std::getenv("LD_PRELOAD"), nullptr);
  EXPECT_EQ(none.find("glibc malloc, M_MMAP_MAX=0"), 0u) << none;
  EXPECT_NE(none.find("; no jemalloc found"), std::string::npos) << none;

  setenv("OPBENCH_JEMALLOC", a_file_that_is_no_jemalloc().c_str(), 1);
  setenv("LD_PRELOAD", "libmine.so", 1);
  const std::string users = configure_host_allocator("tuned");
  EXPECT_EQ(std::string(std::getenv("LD_PRELOAD")), "libmine.so");
  EXPECT_NE(users.find("jemalloc not preloaded: LD_PRELOAD is the user's (libmine.so)"),
            std::string::npos)
      << users;

  setenv("OPBENCH_JEMALLOC", "/no/such/libjemalloc.so.2", 1);
  EXPECT_THROW(configure_host_allocator("tuned"), UsageError);
}

} // namespace
} // namespace opbench::machine
