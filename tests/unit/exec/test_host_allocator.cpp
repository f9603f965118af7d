#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "opbench/core/error.hpp"
#include "opbench/exec/host_allocator.hpp"

namespace opbench::exec {
namespace {

// Restores THP_MEM_ALLOC_ENABLE as the test found it.
class HostAllocator : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* v = std::getenv("THP_MEM_ALLOC_ENABLE");
    m_had = v != nullptr;
    if (m_had) m_value = v;
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

TEST_F(HostAllocator, TunedAsksLibTorchForHugePagesAndSaysSo) {
  const std::string text = configure_host_allocator("tuned");
  ASSERT_NE(std::getenv("THP_MEM_ALLOC_ENABLE"), nullptr);
  EXPECT_EQ(std::string(std::getenv("THP_MEM_ALLOC_ENABLE")), "1");
  EXPECT_NE(text.find("M_MMAP_THRESHOLD=33554432"), std::string::npos) << text;
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

}  // namespace
}  // namespace opbench::exec
