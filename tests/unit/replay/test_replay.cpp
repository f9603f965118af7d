// The sizes file, the replay's record read back, and what a crashed stage's journal keeps
// (replay/replay.hpp). The calls themselves: tests/e2e/test_cli_replay.cpp.
#include <gtest/gtest.h>

#include <string>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/replay/replay.hpp"
#include "temp_dir.hpp"

namespace opbench {
namespace {

using replay::CallStatus;
using replay::ReplayCall;
using replay::StageReplay;
using testing::TempDir;

TEST(ReplaySizes, OneSetALineCommentsAndBlankLinesSkipped) {
  TempDir dir;
  const std::string path = dir.file("sizes.txt");
  core::write_atomically(path, "# a trace\n\nboxes1=1000 boxes2=200\n  boxes1=8\tboxes2=4  \n");
  const auto sets = replay::read_sizes(path);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].line, 3);
  EXPECT_EQ(sets[0].axes, (std::vector<std::string>{"boxes1=1000", "boxes2=200"}));
  EXPECT_EQ(sets[1].line, 4);
  EXPECT_EQ(sets[1].text(), "boxes1=8 boxes2=4");
}

TEST(ReplaySizes, ALineThatIsNotOneSizeEachIsNamedByFileAndLine) {
  TempDir dir;
  const std::string path = dir.file("sizes.txt");
  for (const std::string bad : {"boxes=8,16", "boxes=1:8", "boxes", "=8", "boxes="}) {
    core::write_atomically(path, "boxes=4\n" + bad + "\n");
    try {
      replay::read_sizes(path);
      FAIL() << bad;
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path + ":2: expected NAME=SIZE pairs", 0), 0u)
          << e.what();
    }
  }
  core::write_atomically(path, "# nothing\n\n");
  EXPECT_THROW(replay::read_sizes(path), ConfigError);
}

StageReplay two_calls() {
  StageReplay stage;
  stage.stage = results::Stage::script_dynamic;
  stage.runner = "torchscript+onednn_graph (dynamic shapes)";
  stage.made_from = "s/sizes=[8]";
  stage.made_in = 0.25;
  stage.steady_calls = 5;
  ReplayCall first;
  first.line = 1;
  first.case_id = "s/sizes=[8]";
  first.seconds = 4e-3;
  first.steady = 1e-3;
  first.first_at_size = true;
  first.plans = 1;
  first.compiled = 1;
  ReplayCall refused;
  refused.line = 2;
  refused.case_id = "s/sizes=[1]";
  refused.status = CallStatus::refused;
  refused.message = "the package does not take size 1";
  refused.first_at_size = true;
  ReplayCall again = first;
  again.line = 3;
  again.seconds = 2e-3;
  again.first_at_size = false;
  again.compiled = 0;
  stage.calls = {first, refused, again};
  return stage;
}

TEST(ReplayRecord, TotalsCountTimedFirstAndRefusedCalls) {
  const replay::StageTotals t = replay::totals_of(two_calls());
  EXPECT_EQ(t.calls, 3);
  EXPECT_EQ(t.timed, 2);
  EXPECT_EQ(t.refused, 1);
  EXPECT_DOUBLE_EQ(t.seconds, 6e-3);
  EXPECT_DOUBLE_EQ(t.steady, 2e-3);
  EXPECT_EQ(t.first_calls, 1);
  EXPECT_DOUBLE_EQ(t.first_seconds, 4e-3);
  EXPECT_TRUE(t.counts_plans);
  EXPECT_EQ(t.compiles, 1);
  EXPECT_EQ(t.recompiles, 0);
  const std::string line = replay::summary_line(two_calls());
  EXPECT_NE(line.find("script-dynamic: 2 of 3 calls timed"), std::string::npos) << line;
  EXPECT_NE(line.find("(x3.00)"), std::string::npos) << line;
  EXPECT_NE(line.find("1 refused"), std::string::npos) << line;
}

TEST(ReplayRecord, AStageReadsBackAsWritten) {
  const StageReplay stage = two_calls();
  const StageReplay back = replay::stage_from_json(replay::to_json(stage));
  EXPECT_EQ(replay::to_json(back), replay::to_json(stage));
  EXPECT_EQ(back.calls[1].status, CallStatus::refused);
  EXPECT_FALSE(back.calls[1].seconds.has_value());
  EXPECT_EQ(back.calls[2].plans, 1);
  EXPECT_THROW(replay::stage_from_json(Json{{"stage", "script-dynamic"}}), ConfigError);
}

TEST(ReplayRecord, ACrashedStagesJournalKeepsItsCallsAndNamesTheOneItEndedIn) {
  TempDir dir;
  const std::string journal = dir.file("part.journal");
  const StageReplay stage = two_calls();
  std::string text = Json{{"made",
                           {{"runner", stage.runner},
                            {"made_from", stage.made_from},
                            {"made_in_seconds", 0.25},
                            {"cached", false}}}}
                         .dump() +
                     "\n";
  text += Json{{"starting", true}, {"line", 1}, {"case_id", "s/sizes=[8]"}, {"first_at_size", true}}
              .dump() +
          "\n";
  ReplayCall first = stage.calls[0];
  first.steady.reset(); // the steady calls come after the replay
  text += replay::to_json(first).dump() + "\n";
  text += Json{{"starting", true}, {"line", 2}, {"case_id", "s/sizes=[1]"}, {"first_at_size", true}}
              .dump() +
          "\n";
  core::write_atomically(journal, text);
  const StageReplay kept = replay::kept_calls(results::Stage::script_dynamic, journal, "SIGSEGV");
  EXPECT_FALSE(kept.ok);
  EXPECT_EQ(kept.runner, stage.runner);
  ASSERT_EQ(kept.calls.size(), 2u);
  EXPECT_EQ(kept.calls[0].seconds, 4e-3);
  EXPECT_EQ(kept.calls[1].status, CallStatus::error);
  EXPECT_EQ(kept.calls[1].line, 2);
  EXPECT_EQ(kept.message,
            "its process ended in the call of line 2 (SIGSEGV); 1 call(s) before it kept, the "
            "rest not made");
  // A line cut short ends the reading; nothing at all is a stage with no call.
  core::write_atomically(journal, text.substr(0, text.size() - 10));
  EXPECT_EQ(replay::kept_calls(results::Stage::eager, journal, "exit 1").calls.size(), 1u);
  const StageReplay none = replay::kept_calls(results::Stage::eager, dir.file("none"), "exit 3");
  EXPECT_TRUE(none.calls.empty());
  EXPECT_EQ(none.message, "its process ended without its replay (exit 3)");
}

} // namespace
} // namespace opbench
