// End-to-end: `opbench replay` (replay/replay.hpp): a sample's sizes in order through eager and
// script-dynamic, a bad sizes file, and a stage whose process crashes in the middle.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <string>

#include "cli_fixture.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"

namespace opbench {
namespace {

TEST_F(Cli, AReplayTimesEachCallOnceAndSetsItAgainstItsSizesSteadyTime) {
  const std::string sizes = m_dir.file("sizes.txt");
  core::write_atomically(sizes, "# proposals per image\nboxes=64\n\nboxes=8\nboxes=64\n");
  const std::string out = m_dir.file("replay.json");
  const std::string md = m_dir.file("replay.md");
  const auto r = opbench("replay --sizes " + sizes +
                         " --samples bbox2delta --stage eager,script-dynamic --steady-calls 3 "
                         "--output " +
                         out + " --md " + md);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("eager: 3 of 3 calls timed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("script-dynamic: 3 of 3 calls timed"), std::string::npos) << r.out;
  const Json replay = read_json(out);
  EXPECT_EQ(replay["schema"], "opbench-replay-1");
  ASSERT_EQ(replay["sizes"].size(), 3u);
  EXPECT_EQ(replay["sizes"][1]["line"], 4);
  EXPECT_EQ(replay["sizes"][1]["sizes"], "boxes=8");
  ASSERT_EQ(replay["stages"].size(), 2u);
  for (const auto& stage : replay["stages"]) {
    EXPECT_TRUE(stage["ok"].get<bool>()) << stage.dump();
    EXPECT_EQ(stage["steady_calls"], 3);
    ASSERT_EQ(stage["calls"].size(), 3u) << stage.dump();
    const Json& calls = stage["calls"];
    EXPECT_EQ(calls[0]["line"], 2);
    EXPECT_EQ(calls[2]["line"], 5);
    EXPECT_TRUE(calls[0]["first_at_size"].get<bool>());
    EXPECT_TRUE(calls[1]["first_at_size"].get<bool>());
    EXPECT_FALSE(calls[2]["first_at_size"].get<bool>()); // 64 again
    EXPECT_EQ(calls[0]["case_id"], calls[2]["case_id"]);
    EXPECT_NE(calls[0]["case_id"], calls[1]["case_id"]);
    for (const auto& call : calls) {
      EXPECT_EQ(call["status"], "ok") << call.dump();
      EXPECT_GT(call["seconds"].get<double>(), 0) << call.dump();
      EXPECT_GT(call["steady_seconds"].get<double>(), 0) << call.dump();
    }
    // The same size has one steady time.
    EXPECT_EQ(calls[0]["steady_seconds"], calls[2]["steady_seconds"]);
    EXPECT_EQ(stage["totals"]["calls"], 3);
    EXPECT_EQ(stage["totals"]["first_calls"], 2);
  }
  const Json& eager = replay["stages"][0];
  const Json& script = replay["stages"][1];
  EXPECT_EQ(eager["stage"], "eager");
  EXPECT_EQ(eager["runner"], "aten");
  EXPECT_FALSE(eager["calls"][0].contains("plans"));
  EXPECT_EQ(script["stage"], "script-dynamic");
  EXPECT_NE(script["runner"].get<std::string>().find("dynamic shapes"), std::string::npos);
  // The executor profiles first, then optimizes: the plans it holds only grow.
  int plans = 0;
  for (const auto& call : script["calls"]) {
    ASSERT_TRUE(call.contains("plans")) << call.dump();
    EXPECT_GE(call["plans"].get<int>(), plans);
    plans = call["plans"];
  }
  EXPECT_GE(script["totals"]["compiles"].get<int>(), 1) << script.dump();
  const std::string text = core::read_file(md);
  EXPECT_NE(text.find("| eager | 3 |"), std::string::npos) << text;
  EXPECT_NE(text.find("## script-dynamic"), std::string::npos) << text;
}

TEST_F(Cli, ABadSizesLineIsNamedAndNothingIsReplayed) {
  const std::string sizes = m_dir.file("sizes.txt");
  const std::string out = m_dir.file("replay.json");
  core::write_atomically(sizes, "boxes=64\nboxes=8,16\n");
  auto r = opbench("replay --sizes " + sizes + " --samples bbox2delta --output " + out);
  EXPECT_NE(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(sizes + ":2: expected NAME=SIZE pairs"), std::string::npos) << r.err;
  core::write_atomically(sizes, "boxes=64\nbox=8\n");
  r = opbench("replay --sizes " + sizes + " --samples bbox2delta --output " + out);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find(sizes + ":2: --axis box"), std::string::npos) << r.err;
  r = opbench("replay --sizes " + sizes + " --samples bbox2delta --stage fused");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("fused is made for one size"), std::string::npos) << r.err;
  EXPECT_FALSE(core::path_exists(out));
}

TEST_F(Cli, AStageThatCannotRunTheSelectionIsSkippedSayingWhy) {
  // An exported program's operators replay at eager; a dynamic stage runs samples only.
  const std::string config = m_dir.file("relu.json");
  core::write_atomically(config, R"({"operators": [{"op": "relu", "category": "activation",
    "cases": [{"dims": {"N": 8}, "args": {"self": "Nx8"}}]}]})");
  const std::string sizes = m_dir.file("sizes.txt");
  core::write_atomically(sizes, "N=8\nN=16\n");
  const auto r =
      opbench("replay --config " + config + " --sizes " + sizes + " --stage eager,script-dynamic");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("eager: 2 of 2 calls timed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("script-dynamic: skipped: a dynamic stage runs one trace of a sample"),
            std::string::npos)
      << r.out;
  // One sample's stage that cannot be made skips its own calls; the other's are timed.
  core::write_atomically(sizes, "boxes=64 feature_height=16 feature_width=12 anchors=3\n"
                                "boxes=8 feature_height=8 feature_width=6 anchors=3\n");
  const std::string out = m_dir.file("two.json");
  const auto two = opbench("replay --samples bbox2delta,valid_flags --sizes " + sizes +
                           " --stage script-dynamic --output " + out);
  EXPECT_EQ(two.code, 0) << two.err;
  EXPECT_NE(two.out.find("script-dynamic: 2 of 4 calls timed"), std::string::npos) << two.out;
  EXPECT_NE(two.out.find("; 2 skipped"), std::string::npos) << two.out;
  for (const auto& call : read_json(out)["stages"][0]["calls"]) {
    const bool flags = call["case_id"].get<std::string>().rfind("valid_flags/", 0) == 0;
    EXPECT_EQ(call["status"], flags ? "skipped" : "ok") << call.dump();
  }
}

#ifdef OPBENCH_FAULTY // built with the test libraries (tests/CMakeLists.txt)
class FaultyReplay : public Cli {
protected:
  // `replay` of faulty::OP (tests/data/libs/faulty_ops.cpp: its *_large kernels fail past 4096
  // elements) at the sizes N of an Nx64 input, one a line, at eager; then `more` flags.
  Outcome replay(const std::string& op, const std::string& sizes, const std::string& more) {
    const std::string config = m_dir.file(op + ".json");
    core::write_atomically(config, R"({"operators": [{"op": "faulty::)" + op +
                                       R"(", "category": "custom", "cases": [{"dims": {"N": 64},
                                       "args": {"self": "Nx64"}}]}]})");
    const std::string file = m_dir.file(op + "-sizes.txt");
    core::write_atomically(file, sizes);
    return opbench("replay --load-library " + std::string(OPBENCH_FAULTY) + " --config " + config +
                   " --sizes " + file + " --stage eager " + more);
  }
};

TEST_F(FaultyReplay, AStageWhoseProcessCrashesKeepsTheCallsBeforeTheCrash) {
  // The third size ends the process.
  const std::string out = m_dir.file("replay.json");
  const auto r = replay("softmax_segv_large", "N=8\nN=16\nN=128\nN=8\n", "--output " + out);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("eager: 2 of 3 calls timed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stopped: its process ended in the call of line 3 (SIGSEGV"),
            std::string::npos)
      << r.out;
  const Json stage = read_json(out)["stages"][0];
  EXPECT_FALSE(stage["ok"].get<bool>());
  ASSERT_EQ(stage["calls"].size(), 3u) << stage.dump();
  EXPECT_EQ(stage["calls"][0]["status"], "ok");
  EXPECT_GT(stage["calls"][1]["seconds"].get<double>(), 0);
  EXPECT_EQ(stage["calls"][2]["status"], "error");
  EXPECT_EQ(stage["calls"][2]["line"], 3);
}

TEST_F(FaultyReplay, AStageThatHangsInACallIsStoppedAtTheCallTimeout) {
  const auto r = replay("softmax_hang_large", "N=8\nN=128\n", "--call-timeout 2");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("eager: 1 of 2 calls timed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in the call of line 2 (it held one call past 2.000 s and was stopped)"),
            std::string::npos)
      << r.out;
}

TEST_F(FaultyReplay, AnInterruptedReplayKeepsWhatItReplayedAndDiesOfTheSignal) {
  // The second call hangs; SIGINT after 3 s reaches the stage's process, which keeps its journal.
  const std::string config = m_dir.file("hang.json");
  core::write_atomically(config, R"({"operators": [{"op": "faulty::softmax_hang_large",
    "category": "custom", "cases": [{"dims": {"N": 64}, "args": {"self": "Nx64"}}]}]})");
  const std::string sizes = m_dir.file("sizes.txt");
  core::write_atomically(sizes, "N=8\nN=128\n");
  const std::string out = m_dir.file("replay.json");
  const std::string command = "timeout --preserve-status -s INT 3 '" + std::string(OPBENCH_BINARY) +
                              "' replay --load-library " + OPBENCH_FAULTY + " --config " + config +
                              " --sizes " + sizes + " --stage eager,script-dynamic --output " +
                              out + " >/dev/null 2>'" + m_dir.file("err.txt") + "'";
  const int status = std::system(command.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT);
  const std::string err = testing::read_text(m_dir.file("err.txt"));
  EXPECT_NE(err.find("interrupted by Interrupt: the 1 stage(s) replayed so far are kept in " + out),
            std::string::npos)
      << err;
  const Json replay = read_json(out);
  ASSERT_EQ(replay["stages"].size(), 1u); // script-dynamic never started
  const Json& calls = replay["stages"][0]["calls"];
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["status"], "ok");
  EXPECT_NE(calls[1]["message"].get<std::string>().find("SIGINT"), std::string::npos)
      << calls[1].dump();
}
#endif

} // namespace
} // namespace opbench
