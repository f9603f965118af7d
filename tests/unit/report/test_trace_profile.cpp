// A profiler trace read for the operators of one call (report/trace_profile.hpp), and the
// breakdown's section of a sample case that has one (report/breakdown_reporter.hpp).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "opbench/core/error.hpp"
#include "opbench/report/reporter.hpp"
#include "opbench/report/trace_profile.hpp"
#include "opbench/results/estimate.hpp"
#include "opbench/results/trace_marks.hpp"
#include "temp_dir.hpp"

namespace opbench::report {
namespace {

Json op(const std::string& name, double ts, double dur, int tid = 7) {
  return {{"ph", "X"},  {"cat", "cpu_op"}, {"name", name}, {"pid", 1},
          {"tid", tid}, {"ts", ts},        {"dur", dur}};
}

Json call(double ts, double dur) {
  return {{"ph", "X"},
          {"cat", "user_annotation"},
          {"name", results::k_traced_call},
          {"pid", 1},
          {"tid", 7},
          {"ts", ts},
          {"dur", dur}};
}

// Two marked calls of 20 us each: sub (6 us, which calls empty and copy_ inside it), then mul
// (4 us); the second call's sub takes 8 us. Per call: sub 1 call of 7 us, mul 1 of 4 us, and the
// operators sub calls are not counted again.
Json two_calls() {
  return {{"traceEvents",
           {call(100, 20),
            op("aten::sub", 101, 6),
            op("aten::empty", 101, 1),
            op("aten::copy_", 103, 2),
            op("aten::mul", 110, 4),
            call(200, 20),
            op("aten::sub", 201, 8),
            op("aten::empty", 202, 1),
            op("aten::mul", 212, 4),
            {{"ph", "i"}, {"name", "a marker"}}}}};
}

TEST(TraceProfile, TheTopLevelOperatorsOfOneCall) {
  const TraceProfile p = profile_of_trace(two_calls(), "t.json");
  EXPECT_EQ(p.calls, 2);
  EXPECT_DOUBLE_EQ(p.call_seconds, 20e-6);
  ASSERT_EQ(p.ops.size(), 2u);
  EXPECT_EQ(p.ops[0].name, "aten::sub");
  EXPECT_DOUBLE_EQ(p.ops[0].calls, 1);
  EXPECT_NEAR(p.ops[0].seconds, 7e-6, 1e-15);
  EXPECT_EQ(p.ops[1].name, "aten::mul");
  EXPECT_NEAR(p.ops[1].seconds, 4e-6, 1e-15);
  EXPECT_NEAR(p.op_seconds(), 11e-6, 1e-15);
}

TEST(TraceProfile, UnmarkedCallsAreTheWholeTraceAndAnythingElseIsAnError) {
  const Json unmarked = {{"traceEvents", {op("aten::add", 10, 3), op("aten::add", 20, 5)}}};
  const TraceProfile p = profile_of_trace(unmarked, "old.json");
  EXPECT_EQ(p.calls, 0);
  EXPECT_NEAR(p.call_seconds, 15e-6, 1e-15); // from the first start to the last end
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_DOUBLE_EQ(p.ops[0].calls, 2);
  try {
    profile_of_trace(Json{{"events", Json::array()}}, "bad.json");
    ADD_FAILURE() << "a file without traceEvents was read";
  } catch (const ResultsError& e) {
    EXPECT_EQ(std::string(e.what()), "bad.json: not a profiler trace (no traceEvents list)");
  }
}

TEST(Breakdown, ASampleWithATraceShowsItsOperatorsFromInside) {
  testing::TempDir dir;
  const std::string trace = dir.write("bbox2delta.json", two_calls().dump());
  results::CaseResult whole;
  whole.c.name = "bbox2delta";
  whole.c.kind = results::Kind::sample;
  whole.c.case_id = "bbox2delta/sizes=[64]/float32/cpu/t1/forward";
  whole.estimate = results::estimate_of({15e-6});
  whole.trace = trace;
  results::ResultSet set;
  set.cases = {whole};
  std::ostringstream out;
  write_report("breakdown", set, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("## bbox2delta/sizes=[64]"), std::string::npos) << text;
  EXPECT_NE(text.find("2 calls traced"), std::string::npos) << text;
  EXPECT_NE(text.find("| 1 | `aten::sub` | 1 | 7.00 us | 35.0% |"), std::string::npos) << text;
  EXPECT_NE(text.find("| 2 | `aten::mul` | 1 | 4.00 us | 20.0% |"), std::string::npos) << text;
  EXPECT_NE(text.find("**ATen at the top level**: 11.00 us of the call's 20.00 us traced (55%)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Timed without the profiler, the call takes 15.00 us."), std::string::npos)
      << text;
  // No model, no parts: no empty model table.
  EXPECT_EQ(text.find("Sum of the parts"), std::string::npos) << text;
}

} // namespace
} // namespace opbench::report
