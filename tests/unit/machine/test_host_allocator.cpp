#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "opbench/core/error.hpp"
#include "opbench/machine/host_allocator.hpp"

namespace opbench::machine {
namespace {

// Restores THP_MEM_ALLOC_ENABLE as the test found it.
class HostAllocator : public ::testing::Test {
protected:
  void SetUp() override {
    const char* v = std::getenv("THP_MEM_ALLOC_ENABLE");
    m_had = v != nullptr;
    if (m_had)
      m_value = v;
    unsetenv("THP_MEM_ALLOC_ENABLE");
  }
  void TearDown() override {
    if (m_had) {
      setenv("THP_MEM_ALLOC_ENABLE", m_value.c_str(), 1);
    } else {
      unsetenv("THP_MEM_ALLOC_ENABLE");
    }
  }
  bool m_had = false;
  std::string m_value;
};

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
TEST_F(HostAllocator, TunedServesABlockOver32MiBFromTheHeapWithoutFaultingItInAgain) {
  configure_host_allocator("tuned");
  constexpr std::size_t bytes = std::size_t{64} << 20;
  const long first = faults_of_a_touched_block(bytes);
  const long second = faults_of_a_touched_block(bytes);
  EXPECT_LE(second, 2) << "first touch " << first << " faults, second " << second;
}

TEST_F(HostAllocator, TunedAsksLibTorchForHugePagesAndSaysSo) {
  const std::string text = configure_host_allocator("tuned");
  ASSERT_NE(std::getenv("THP_MEM_ALLOC_ENABLE"), nullptr);
  EXPECT_EQ(std::string(std::getenv("THP_MEM_ALLOC_ENABLE")), "1");
  EXPECT_NE(text.find("M_MMAP_MAX=0 M_MMAP_THRESHOLD=33554432"), std::string::npos) << text;
  EXPECT_NE(text.find("THP_MEM_ALLOC_ENABLE=1"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel THP "), std::string::npos) << text;
}

TEST_F(HostAllocator, AUsersOwnSettingStaysAndSystemSetsNothing) {
  setenv("THP_MEM_ALLOC_ENABLE", "0", 1);
  const std::string tuned = configure_host_allocator("tuned");
  EXPECT_EQ(std::string(std::getenv("THP_MEM_ALLOC_ENABLE")), "0");
  EXPECT_NE(tuned.find("huge pages: no (THP_MEM_ALLOC_ENABLE=0"), std::string::npos) << tuned;
  unsetenv("THP_MEM_ALLOC_ENABLE");
  const std::string system = configure_host_allocator("system");
  EXPECT_EQ(std::getenv("THP_MEM_ALLOC_ENABLE"), nullptr);
  EXPECT_NE(system.find("THP_MEM_ALLOC_ENABLE=unset"), std::string::npos) << system;
  EXPECT_THROW(configure_host_allocator("fast"), UsageError);
}

TEST_F(HostAllocator, AUsersOwnMmapMaxTunableStays) {
  const char* before = std::getenv("GLIBC_TUNABLES");
  const std::string kept = before == nullptr ? "" : before;
  setenv("GLIBC_TUNABLES", "glibc.malloc.check=0:glibc.malloc.mmap_max=65536", 1);
  const std::string text = configure_host_allocator("tuned");
  if (before == nullptr) {
    unsetenv("GLIBC_TUNABLES");
  } else {
    setenv("GLIBC_TUNABLES", kept.c_str(), 1);
  }
  EXPECT_NE(text.find("M_MMAP_MAX from GLIBC_TUNABLES M_MMAP_THRESHOLD=33554432"),
            std::string::npos)
      << text;
  EXPECT_EQ(configure_host_allocator("tuned").find("M_MMAP_MAX from"), std::string::npos);
}

} // namespace
} // namespace opbench::machine
