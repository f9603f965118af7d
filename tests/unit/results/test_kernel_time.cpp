#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "opbench/core/error.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/kernel_time.hpp"
#include "opbench/results/store.hpp"
#include "sample_result.hpp"

namespace opbench::results {
namespace {

using Kind = DeviceActivity::Kind;

TEST(KernelTime, SumsTheKernelsAndCopiesOfTheCallsPerCall) {
  // 4 calls, each a 2 us and a 1 us kernel on stream 7 (the timer's) and a memset.
  std::vector<DeviceActivity> seen;
  for (int i = 0; i < 4; ++i) {
    seen.push_back({Kind::kernel, "gemm", 7, 2e-6});
    seen.push_back({Kind::kernel, "bias", 7, 1e-6});
    seen.push_back({Kind::set, "memset", 7, 0.5e-6});
  }
  const KernelTime k = kernel_time_of(seen, 4, 7);
  EXPECT_EQ(k.calls, 4);
  EXPECT_DOUBLE_EQ(k.per_call, 3e-6);
  EXPECT_DOUBLE_EQ(k.kernels_per_call, 2);
  EXPECT_DOUBLE_EQ(k.copies_per_call, 1);
  EXPECT_DOUBLE_EQ(k.copy_time_per_call, 0.5e-6);
  EXPECT_EQ(k.off_stream, "");
  // One kernel a call on a side stream the timer does not wait for: flagged, still counted.
  for (int i = 0; i < 4; ++i)
    seen.push_back({Kind::kernel, "side", 13, 4e-6});
  const KernelTime side = kernel_time_of(seen, 4, 7);
  EXPECT_DOUBLE_EQ(side.per_call, 7e-6);
  EXPECT_EQ(side.off_stream, "1 of 4 activities a call ran on another stream than the timer's "
                             "(stream 13): the case's time may not hold them");
  // The timer's stream not seen: nothing judged.
  EXPECT_EQ(kernel_time_of(seen, 4, -1).off_stream, "");
  // No calls: nothing made up.
  EXPECT_DOUBLE_EQ(kernel_time_of({}, 0, 7).per_call, 0);
}

TEST(KernelTime, RoundTripsInTheResultFileAndTheFirstRepetitionsIsKept) {
  CaseResult r = testing_support::make_result("a", {1e-6, 1.1e-6});
  r.kernel_time = kernel_time_of({{Kind::kernel, "k", 7, 1e-6}, {Kind::copy, "c", 7, 2e-6}}, 1, 7);
  ResultSet set;
  set.cases.push_back(r);
  const Json json = to_json(set);
  EXPECT_DOUBLE_EQ(json["cases"][0]["kernel_time"]["time"].get<double>(), 1e-6);
  EXPECT_EQ(json["cases"][0]["kernel_time"]["copies_per_call"], 1.0);
  const ResultSet back = result_set_from_json(json, "r.json");
  ASSERT_TRUE(back.cases[0].kernel_time.has_value());
  EXPECT_DOUBLE_EQ(back.cases[0].kernel_time->copy_time_per_call, 2e-6);
  // Profiled in the first repetition only: the combined case keeps it.
  CaseResult later = testing_support::make_result("a", {1.2e-6});
  EXPECT_TRUE(combine_repetitions({later, r}).kernel_time.has_value());
  EXPECT_FALSE(combine_repetitions({later, later}).kernel_time.has_value());
  // Absent from files without it; malformed is refused naming the file.
  Json bad = json;
  bad["cases"][0]["kernel_time"] = Json::array();
  EXPECT_THROW((void)result_set_from_json(bad, "bad.json"), ResultsError);
  bad["cases"][0].erase("kernel_time");
  EXPECT_FALSE(result_set_from_json(bad, "ok.json").cases[0].kernel_time.has_value());
}

} // namespace
} // namespace opbench::results
