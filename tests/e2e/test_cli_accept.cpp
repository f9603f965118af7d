// End-to-end: accepting an intended change (`history accept`). Five nights of one build, then a
// night whose operator does twice the work (tests/data/libs/extra_work.cpp, OPBENCH_TEST_EXTRA=1),
// about x2 against the five. Once that step is accepted, the next night of that build is
// judged against the new level at once; undone, against the old level again, and the accept
// stays in the history, marked undone.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "cli_fixture.hpp"
#include "extra_work.hpp"
#include "opbench/core/json.hpp"

namespace opbench {
namespace {

const std::string k_case = "opbench_test::exp_extra/self=256x1024/float32/cpu/t1/forward";

class Accept : public Cli {
protected:
  std::string night(const std::string& name) {
    const std::string config = m_dir.file("extra.json");
    std::ofstream(config) << R"({"libraries": [")" << OPBENCH_EXTRA_WORK << R"("], "operators": [
      {"op": "opbench_test::exp_extra", "cases": [{"args": {"self": "256x1024"}}]}]})";
    const std::string out = m_dir.file(name + ".json");
    const auto run = opbench("run --config " + config + " --repetitions 2 --processes 1 --output " +
                             out + k_quick_stopping);
    EXPECT_EQ(run.code, 0) << run.err;
    return out;
  }
  Json judged(const std::string& db, const std::string& tonight) {
    // Time alone: the step keeps a buffer, so memory would exit 4 (the memory test's matter).
    const auto gate =
        opbench("compare --history " + db + " " + tonight + " --fail-on time --format json");
    EXPECT_EQ(gate.code, 0) << gate.err;
    const Json cases = Json::parse(gate.out)["cases"];
    EXPECT_EQ(cases.size(), 1u);
    return cases.at(0);
  }
};

TEST_F(Accept, TheGateJudgesTheNightsAfterAnAcceptedStepAgainstItsLevel) {
  const std::string db = m_dir.file("history.sqlite");
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(opbench("history add --db " + db + " " + night("n" + std::to_string(i))).code, 0);
  std::string step, after;
  {
    const testing::ExtraWork twice("1");
    step = night("step");
    // The gate's history is the runs dated before tonight, to the second.
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    after = night("after");
  }
  // The step night itself, against the five before it: twice the work, about x2 (its quick
  // nights, run beside other tests, are too noisy to ask for a candidate or a size here: in one
  // CI run the five spread 0.21-0.62 ms; the ratio only says which way).
  const Json before = judged(db, step);
  EXPECT_GT(before["ratio"].get<double>(), 1.0) << before.dump();
  ASSERT_EQ(opbench("history add --db " + db + " " + step).code, 0);
  // The night after, against the measured nights: what undoing an accept must give again.
  const Json measured = judged(db, after);

  EXPECT_EQ(opbench("history accept --db " + db + " --case " + k_case).code, 2); // no reason
  const auto accept = opbench("history accept --db " + db + " --case " + k_case +
                              " --reason 'exp twice, on purpose'");
  ASSERT_EQ(accept.code, 0) << accept.err;
  EXPECT_NE(accept.out.find("accept 1:"), std::string::npos) << accept.out;
  const Json accepted = judged(db, after);
  // Against the new level: the five nights before it were moved onto it, by the step's own ratio
  // to them (the median of the nights from the accepted one on: the step night alone), so the
  // baseline is the step night's time.
  const double step_time = read_json(step)["cases"][0]["estimate"]["time"].get<double>();
  EXPECT_NEAR(accepted["baseline"].get<double>(), step_time, 1e-6 * step_time) << accepted.dump();
  EXPECT_NE(accepted["baseline"].get<double>(), measured["baseline"].get<double>());
  EXPECT_NE(accepted["accepted"].get<std::string>().find("exp twice, on purpose"),
            std::string::npos);
  const auto shown = opbench("history show --db " + db + " --case " + k_case);
  EXPECT_NE(shown.out.find("accepted from here: exp twice, on purpose"), std::string::npos)
      << shown.out;

  ASSERT_EQ(opbench("history accept --db " + db + " --undo 1").code, 0);
  EXPECT_EQ(opbench("history accept --db " + db + " --undo 1").code, 2); // undone before
  // Against the measured nights again: the judgment before the accept, to the last digit.
  const Json undone = judged(db, after);
  EXPECT_EQ(undone["accepted"], "") << undone.dump();
  EXPECT_EQ(undone["baseline"].get<double>(), measured["baseline"].get<double>()) << undone.dump();
  EXPECT_EQ(undone["ratio"].get<double>(), measured["ratio"].get<double>());
  const auto listed = opbench("history show --db " + db);
  EXPECT_NE(listed.out.find("| 1 | `" + k_case + "` |"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("exp twice, on purpose"), std::string::npos);
}

TEST_F(Accept, AThresholdsFileIsReadAndItsErrorsNameTheLine) {
  const std::string a = night("a");
  const std::string b = night("b");
  const std::string rules = m_dir.file("thresholds.txt");
  std::ofstream(rules) << "# a family of its own\nop opbench_test::exp_extra 0.5\n";
  const auto two = opbench("compare " + a + " " + b + " --thresholds " + rules + " --format json");
  EXPECT_NE(two.code, 2) << two.err;
  const Json c = Json::parse(two.out)["cases"].at(0);
  EXPECT_EQ(c["threshold"], 0.5);
  EXPECT_EQ(c["threshold_rule"], "op opbench_test::exp_extra");
  const std::string db = m_dir.file("history.sqlite");
  ASSERT_EQ(opbench("history add --db " + db + " " + a).code, 0);
  const auto gate =
      opbench("compare --history " + db + " " + b + " --thresholds " + rules + " --format json");
  EXPECT_EQ(Json::parse(gate.out)["cases"].at(0)["floor_rule"], "op opbench_test::exp_extra");

  std::ofstream(rules) << "op opbench_test::exp_extra 0.5\ntag noisy 10%\n";
  const auto bad = opbench("compare " + a + " " + b + " --thresholds " + rules);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find(rules + ":2: threshold '10%' is not a relative change"), std::string::npos)
      << bad.err;
  std::ofstream(rules) << "op opbench_test::exp_extr 0.5\n";
  const auto typo = opbench("compare --history " + db + " " + b + " --thresholds " + rules);
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.err.find(rules + ":1: op opbench_test::exp_extr matches no case"),
            std::string::npos)
      << typo.err;
}

} // namespace
} // namespace opbench
