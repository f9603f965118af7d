// End-to-end: memory as a regression signal. One build of an operator library, then the same
// library told to keep an extra buffer (tests/data/libs/extra_work.cpp, OPBENCH_TEST_EXTRA): the
// gate against the history of the unchanged build, and `compare` of two files, must say `more
// memory` for that case alone, fail JUnit on it and exit 4.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_fixture.hpp"
#include "extra_work.hpp"
#include "opbench/core/json.hpp"

namespace opbench {
namespace {

const std::string k_extra_work = OPBENCH_EXTRA_WORK;
const std::string k_exp = "opbench_test::exp_extra/self=64x1024/float32/cpu/t1/forward";
const std::string k_relu = "relu/self=64x64/float32/cpu/t1/forward";

const Json& case_of(const Json& judged, const std::string& id) {
  for (const auto& c : judged["cases"]) {
    if (c["case_id"] == id)
      return c;
  }
  static const Json none;
  ADD_FAILURE() << "no case " << id << " in " << judged.dump();
  return none;
}

class Memory : public Cli {
protected:
  std::string night(const std::string& name, const std::string& args = "") {
    const std::string config = m_dir.file("extra.json");
    std::ofstream(config) << R"({"libraries": [")" << k_extra_work << R"("], "operators": [
      {"op": "opbench_test::exp_extra", "cases": [{"args": {"self": "64x1024"}}]},
      {"op": "relu", "cases": [{"args": {"self": "64x64"}}]}]})";
    const std::string out = m_dir.file(name + ".json");
    const auto run = opbench("run --config " + config + " --repetitions 2 --processes 1 --output " +
                             out + k_quick_stopping + args);
    EXPECT_EQ(run.code, 0) << run.err;
    return out;
  }
};

TEST_F(Memory, TheGateAndCompareCatchACallThatKeepsAnExtraBuffer) {
  const std::string db = m_dir.file("history.sqlite");
  const std::string first = night("first");
  ASSERT_EQ(opbench("history add --db " + db + " " + first).code, 0);

  // The same build again: the same bytes, exactly.
  const std::string same = night("same");
  const auto quiet = opbench("compare --history " + db + " " + same + " --format json");
  EXPECT_EQ(quiet.code, 0) << quiet.err;
  const Json q = Json::parse(quiet.out);
  EXPECT_EQ(case_of(q, k_exp)["memory"]["verdict"], "same") << quiet.out;
  EXPECT_EQ(case_of(q, k_relu)["memory"]["verdict"], "same");
  EXPECT_EQ(q["more_memory"], false);

  std::string changed;
  {
    const testing::ExtraWork extra("0.05");
    changed = night("changed");
  }
  const auto gate = opbench("compare --history " + db + " " + changed + " --format json");
  EXPECT_EQ(gate.code, 4) << gate.err;
  const Json g = Json::parse(gate.out);
  const Json& exp = case_of(g, k_exp)["memory"];
  EXPECT_EQ(exp["verdict"], "more memory") << gate.out;
  // 5% of 65536 floats, in one buffer of 3276 floats beside the output.
  EXPECT_EQ(exp["new_peak_bytes"].get<std::int64_t>() - exp["base_peak_bytes"].get<std::int64_t>(),
            3276 * 4);
  EXPECT_NE(exp["reason"].get<std::string>().find("peak"), std::string::npos);
  EXPECT_EQ(exp["tolerance_bytes"], 0);
  EXPECT_EQ(case_of(g, k_relu)["memory"]["verdict"], "same");
  EXPECT_EQ(g["memory_counts"]["more memory"], 1);

  const auto md = opbench("compare --history " + db + " " + changed);
  EXPECT_EQ(md.code, 4);
  EXPECT_NE(md.out.find("## More memory"), std::string::npos) << md.out;
  const auto junit = opbench("compare --history " + db + " " + changed + " --format junit");
  EXPECT_NE(junit.out.find(R"(<failure type="more memory")"), std::string::npos) << junit.out;
  // Time alone decides when asked to.
  EXPECT_EQ(opbench("compare --history " + db + " " + changed + " --fail-on time").code, 0);

  // Two files: the same verdicts and exit code; only memory fails here.
  const auto two = opbench("compare " + same + " " + changed + " --fail-on memory --format csv");
  EXPECT_EQ(two.code, 4) << two.err;
  EXPECT_NE(two.out.find(k_exp), std::string::npos);
  EXPECT_NE(two.out.find(",more memory,"), std::string::npos) << two.out;

  // The history keeps each night's peak, and shows where it stepped.
  ASSERT_EQ(opbench("history add --db " + db + " " + changed).code, 0);
  const auto shown = opbench("history show --db " + db + " --case " + k_exp);
  EXPECT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("peak memory"), std::string::npos) << shown.out;
}

TEST_F(Memory, IsNotComparedAcrossInputSeeds) {
  const std::string a = night("a");
  const std::string out = night("seed", " --seed 7");
  const auto two = opbench("compare " + a + " " + out + " --format json");
  const Json c = Json::parse(two.out);
  const Json& m = case_of(c, k_relu)["memory"];
  EXPECT_EQ(m["verdict"], "unknown");
  EXPECT_NE(m["reason"].get<std::string>().find("seed"), std::string::npos) << m.dump();
}

} // namespace
} // namespace opbench
