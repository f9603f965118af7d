// The memory verdict (results/memory_change.hpp): exact on the CPU, the caching allocator's
// rounding on CUDA, unknown across LibTorch builds or input seeds, or without a probe.
#include <gtest/gtest.h>

#include "opbench/results/memory_change.hpp"

namespace opbench::results {
namespace {

MemoryStats bytes(std::int64_t peak, std::int64_t total, std::int64_t allocations = 1) {
  MemoryStats m;
  m.peak_bytes = peak;
  m.total_bytes = total;
  m.allocations = allocations;
  return m;
}

TEST(MemoryChange, OnTheCpuOneByteIsAChange) {
  EXPECT_EQ(judge_memory(bytes(4096, 4096), bytes(4096, 4096), "cpu", "").verdict,
            MemoryVerdict::same);
  const auto more = judge_memory(bytes(4096, 4096), bytes(4097, 4096), "cpu", "");
  EXPECT_EQ(more.verdict, MemoryVerdict::more);
  EXPECT_EQ(more.tolerance, 0);
  EXPECT_NE(more.reason.find("peak"), std::string::npos) << more.reason;
  EXPECT_DOUBLE_EQ(more.peak_ratio(), 4097.0 / 4096.0);
  EXPECT_EQ(judge_memory(bytes(4096, 8192), bytes(4096, 4096), "cpu", "").verdict,
            MemoryVerdict::less);
}

TEST(MemoryChange, MoreOfOneKindAndLessOfTheOtherIsMore) {
  // A buffer kept instead of made twice: a lower total, a higher peak. The peak is what a batch
  // size has to fit, so the case is `more memory`, and both moves are said.
  const auto c = judge_memory(bytes(4096, 16384), bytes(8192, 8192), "cpu", "");
  EXPECT_EQ(c.verdict, MemoryVerdict::more);
  EXPECT_NE(c.reason.find("peak"), std::string::npos);
  EXPECT_NE(c.reason.find("total"), std::string::npos);
}

TEST(MemoryChange, ATrainingStepKeepingMoreForBackwardIsMore) {
  // The same peak and total, but the forward keeps one more intermediate until backward.
  MemoryStats before = bytes(8192, 8192), after = bytes(8192, 8192);
  before.kept_for_backward_bytes = 4096;
  after.kept_for_backward_bytes = 6144;
  const auto c = judge_memory(before, after, "cpu", "");
  EXPECT_EQ(c.verdict, MemoryVerdict::more);
  EXPECT_NE(c.reason.find("kept for backward"), std::string::npos) << c.reason;
  // Only one side measured it (a forward case, or an older file): the rest decides.
  after.kept_for_backward_bytes.reset();
  EXPECT_EQ(judge_memory(before, after, "cpu", "").verdict, MemoryVerdict::same);
}

TEST(MemoryChange, OnCudaTheAllocatorsRoundingIsTheSame) {
  const std::int64_t tolerance = memory_tolerance("cuda:0", 4);
  EXPECT_EQ(tolerance, 4 * 512 + (1 << 20));
  EXPECT_EQ(judge_memory(bytes(1 << 24, 1 << 24, 4), bytes((1 << 24) + tolerance, 1 << 24, 4),
                         "cuda:0", "")
                .verdict,
            MemoryVerdict::same);
  EXPECT_EQ(judge_memory(bytes(1 << 24, 1 << 24, 4), bytes((1 << 24) + tolerance + 1, 1 << 24, 4),
                         "cuda:0", "")
                .verdict,
            MemoryVerdict::more);
}

TEST(MemoryChange, IsUnknownWithoutAProbeOrAcrossSetups) {
  const auto none = judge_memory(std::nullopt, bytes(1, 1), "cpu", "");
  EXPECT_EQ(none.verdict, MemoryVerdict::unknown);
  EXPECT_NE(none.reason.find("BASE"), std::string::npos);
  EXPECT_EQ(none.new_peak, 1);
  EXPECT_EQ(none.base_peak, -1);

  const Json a = {{"libtorch_version", "2.15.0"}, {"libtorch_cuda_compiled", true}};
  Json b = a;
  EXPECT_EQ(memory_setup_difference(a, 1, b, 1), "");
  // A history's setup has nulls where a run did not record a key: the same as absent.
  EXPECT_EQ(memory_setup_difference({{"libtorch_version", nullptr}}, 1, Json::object(), 1), "");
  b["libtorch_version"] = "2.11.0";
  const std::string why = memory_setup_difference(a, 1, b, 2);
  EXPECT_NE(why.find("libtorch_version 2.15.0 vs 2.11.0"), std::string::npos) << why;
  EXPECT_NE(why.find("input seed 1 vs 2"), std::string::npos) << why;
  const auto other = judge_memory(bytes(1, 1), bytes(2, 2), "cpu", why);
  EXPECT_EQ(other.verdict, MemoryVerdict::unknown);
  EXPECT_NE(other.reason.find(why), std::string::npos);
}

TEST(MemoryChange, JsonHasTheVerdictsNameAndNullForMissingBytes) {
  const Json j = to_json(judge_memory(std::nullopt, bytes(10, 20), "cpu", ""));
  EXPECT_EQ(j["verdict"], "unknown");
  EXPECT_TRUE(j["base_peak_bytes"].is_null());
  EXPECT_EQ(j["new_total_bytes"], 20);
  EXPECT_EQ(core::name_of(MemoryVerdict::more), "more memory");
}

} // namespace
} // namespace opbench::results
