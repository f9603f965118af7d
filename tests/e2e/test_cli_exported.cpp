// End-to-end: `opbench extract --exported` on a torch.export program made by the set-up's Python
// (examples/exported/make_program.py), then run at other sizes of its dynamic dimension.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "cli_fixture.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"

namespace opbench {
namespace {

const std::string k_examples = std::string(OPBENCH_SOURCE_DIR) + "/examples/exported";

// The set-up's Python (or $OPBENCH_PYTHON), quoted for a shell.
std::string python_command() {
  const char* chosen = std::getenv("OPBENCH_PYTHON");
  return "'" +
         (chosen != nullptr && *chosen != '\0'
              ? std::string(chosen)
              : std::string(OPBENCH_SOURCE_DIR) + "/.venv/bin/python") +
         "'";
}

// Writes the example program (with --awkward: the nodes a config cannot express) to `out`.
void make_program(const std::string& out, bool awkward) {
  const std::string command = python_command() + " '" + k_examples + "/make_program.py' '" + out +
                              "'" + (awkward ? " --awkward" : "") + " 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

// Runs `code` in that Python.
void python(const std::string& code) {
  const std::string command = python_command() + " -c \"" + code + "\" 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

TEST_F(Cli, AnExportedProgramsCallsRunAtOtherSizesOfItsDynamicDimension) {
  const std::string program = m_dir.file("block.pt2");
  make_program(program, false);
  const std::string config = m_dir.file("block.json");
  const auto extracted = opbench("extract --exported " + program + " --output " + config);
  ASSERT_EQ(extracted.code, 0) << extracted.err;
  EXPECT_NE(extracted.out.find("X_0 (x's dimension 0, 8 here, 2 to 1024)"), std::string::npos)
      << extracted.out;
  const Json json = read_json(config);
  const Json& dims = json["exported"]["dims"];
  EXPECT_EQ(dims["X_0"]["example"], 8);
  EXPECT_EQ(dims["X_0"]["max"], 1024);
  EXPECT_EQ(dims["X_1"]["example"], 16);
  ASSERT_EQ(json["operators"].size(), 4u); // matmul, relu, layer_norm, softmax
  for (const auto& op : json["operators"]) {
    ASSERT_EQ(op["cases"].size(), 1u) << op.dump();
    EXPECT_EQ(op["cases"][0]["dims"], (Json{{"X_0", 8}, {"X_1", 16}})) << op.dump();
    EXPECT_FALSE(op["cases"][0].contains("unsupported")) << op.dump();
  }
  // The batch swept: every operator's shapes follow it.
  const std::string out = m_dir.file("swept.json");
  const auto run = opbench("run --config " + config + " --axis X_0=8,64" + k_quick_stopping +
                           " --processes 1 --repetitions 1 --output " + out);
  ASSERT_EQ(run.code, 0) << run.err;
  const Json swept = read_json(out);
  ASSERT_EQ(swept["cases"].size(), 8u);
  int at_8 = 0, at_64 = 0;
  for (const auto& c : swept["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    const std::string id = c["case_id"];
    at_8 += id.find("=8x16x64") != std::string::npos ? 1 : 0;
    at_64 += id.find("=64x16x64") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(at_8, 4);
  EXPECT_EQ(at_64, 4);

  // torch.export keeps no Dim names: --dim gives them, and --axis sweeps them by those names.
  const std::string named = m_dir.file("named.json");
  const auto renamed =
      opbench("extract --exported " + program + " --dim X_0=BATCH --dim X_1=SEQ --output " + named);
  ASSERT_EQ(renamed.code, 0) << renamed.err;
  const Json with_names = read_json(named);
  EXPECT_EQ(with_names["exported"]["dims"]["BATCH"]["symbol"], dims["X_0"]["symbol"]);
  EXPECT_EQ(with_names["operators"][0]["cases"][0]["dims"], (Json{{"BATCH", 8}, {"SEQ", 16}}));
  const auto planned = opbench("run --config " + named + " --axis BATCH=2 --dry-run");
  EXPECT_EQ(planned.code, 0) << planned.err;
  EXPECT_NE(planned.out.find("=2x16x64"), std::string::npos) << planned.out;
  const auto unknown = opbench("extract --exported " + program + " --dim X_9=BATCH --output " +
                               m_dir.file("no.json"));
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("no dimension X_9 (the program's: X_0, X_1)"), std::string::npos)
      << unknown.err;
}

// `replay` of an extracted program (docs/replay.md): eager calls its operators one by one, and
// inductor-dynamic the whole program, compiled once with its symbolic dimensions.
TEST_F(Cli, AnExportedProgramsSizesReplayThroughItsOperatorsAndTheWholeCompiledProgram) {
  const std::string program = m_dir.file("block.pt2");
  make_program(program, false);
  // The sizes the program meets, recorded by calling its module on a user's inputs: the third
  // call's batch is past the program's range (1024), so the program refuses it.
  const std::string calls = m_dir.file("calls.pt");
  python("import torch; torch.save([(torch.randn(b, s, 64),) for b, s in "
         "[(8, 16), (64, 16), (2000, 16), (8, 16)]], '" +
         calls + "')");
  const std::string config = m_dir.file("block.json");
  const std::string sizes = m_dir.file("sizes.txt");
  const auto extracted =
      opbench("extract --exported " + program + " --dim X_0=BATCH --dim X_1=SEQ --record-sizes " +
              calls + " --sizes-output " + sizes + " --output " + config);
  ASSERT_EQ(extracted.code, 0) << extracted.err;
  EXPECT_NE(extracted.out.find("sizes of 4 call(s) (1 refused by the program)"), std::string::npos)
      << extracted.out;
  EXPECT_EQ(
      read_json(config)["exported"]["inputs"],
      (Json::array({{{"name", "x"}, {"shape", {"BATCH", "SEQ", 64}}, {"dtype", "float32"}}})));
  const std::string recorded = testing::read_text(sizes);
  EXPECT_NE(recorded.find("\nBATCH=8 SEQ=16\nBATCH=64 SEQ=16\n# call 3 (BATCH=2000 SEQ=16): the "
                          "program refuses it: "),
            std::string::npos)
      << recorded;
  const std::string out = m_dir.file("replay.json");
  const auto r = opbench("replay --config " + config + " --sizes " + sizes +
                         " --stage eager,inductor-dynamic --steady-calls 3 --output " + out);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const Json replay = read_json(out);
  ASSERT_EQ(replay["stages"].size(), 2u);
  const Json& eager = replay["stages"][0];
  EXPECT_EQ(eager["calls"].size(), 12u); // matmul, relu, layer_norm, softmax at each set
  const Json& whole = replay["stages"][1];
  EXPECT_EQ(whole["runner"], "aotinductor (the exported program, dynamic shapes)");
  ASSERT_EQ(whole["calls"].size(), 3u) << whole.dump();
  EXPECT_EQ(whole["calls"][0]["case_id"], "program block.pt2 BATCH=8 SEQ=16");
  EXPECT_EQ(whole["calls"][1]["case_id"], "program block.pt2 BATCH=64 SEQ=16");
  EXPECT_FALSE(whole["calls"][2]["first_at_size"].get<bool>());
  for (const auto& call : whole["calls"]) {
    EXPECT_EQ(call["status"], "ok") << call.dump();
    EXPECT_GT(call["seconds"].get<double>(), 0);
    EXPECT_GT(call["steady_seconds"].get<double>(), 0);
  }
}

TEST_F(Cli, WhatAConfigCannotExpressIsNamedByItsNodeAndTheRestExtracted) {
  const std::string program = m_dir.file("awkward.pt2");
  make_program(program, true);
  const std::string config = m_dir.file("awkward.json");
  const auto extracted = opbench("extract --exported " + program + " --output " + config);
  ASSERT_EQ(extracted.code, 0) << extracted.err;
  // A size that is an expression of two dimensions (the reshape's), and one no input has.
  EXPECT_NE(extracted.err.find("node nonzero: size s"), std::string::npos) << extracted.err;
  EXPECT_NE(extracted.err.find("is an expression of the program's dimensions"), std::string::npos)
      << extracted.err;
  EXPECT_NE(extracted.err.find("appears in no input, so it has no example"), std::string::npos)
      << extracted.err;
  // The model's own four operators are there, runnable.
  const auto run = opbench("run --config " + config + k_quick_stopping +
                           " --processes 1 --repetitions 1 --output " + m_dir.file("run.json"));
  EXPECT_EQ(run.code, 0) << run.err;
  int ok = 0, skipped = 0;
  const Json ran = read_json(m_dir.file("run.json"));
  for (const auto& c : ran["cases"]) {
    ok += c["status"] == "ok" ? 1 : 0;
    skipped += c["status"] == "skipped" ? 1 : 0;
  }
  EXPECT_GE(ok, 5); // matmul, relu, layer_norm, softmax, reshape
  EXPECT_GE(skipped, 3);

  // Not an exported program: one line naming the file, nothing written.
  const std::string junk = m_dir.write("junk.pt2", "not a zip archive");
  const auto refused = opbench("extract --exported " + junk + " --output " + m_dir.file("j.json"));
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_NE(refused.err.find(junk + ": not an exported program torch "), std::string::npos)
      << refused.err;
  EXPECT_FALSE(core::path_exists(m_dir.file("j.json")));
}

} // namespace
} // namespace opbench
