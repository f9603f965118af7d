// End-to-end: an operator library of one's own (--load-library, a config's "libraries"), with
// examples/custom_op's myops, and the libraries that must be refused with a clear error.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_fixture.hpp"
#include "opbench/core/json.hpp"

namespace opbench {
namespace {

const std::string k_myops = OPBENCH_MYOPS;
const std::string k_example =
    std::string(OPBENCH_SOURCE_DIR) + "/examples/custom_op/fast_gelu.json";

TEST_F(Cli, ALoadedLibrarysOperatorsAreListedShownAndRun) {
  const auto all = opbench("list --all --load-library " + k_myops);
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_NE(all.out.find("myops::fast_gelu\n"), std::string::npos);
  EXPECT_EQ(opbench("list --all").out.find("myops::"), std::string::npos);

  const auto show = opbench("show myops::fast_gelu --load-library " + k_myops);
  ASSERT_EQ(show.code, 0) << show.err;
  EXPECT_NE(show.out.find("myops::fast_gelu(Tensor self) -> Tensor"), std::string::npos);

  // Two processes (children find the library through each case's `library`), its small cases.
  const std::string out = m_dir.file("myops.json");
  const auto run = opbench("run --load-library " + k_myops + " --config " + k_example +
                           " --shape-class small --processes 2 --repetitions 2 --output " + out +
                           k_quick_stopping);
  ASSERT_EQ(run.code, 0) << run.err;
  const Json result = read_json(out);
  ASSERT_EQ(result["cases"].size(), 2u);
  bool custom = false;
  for (const auto& c : result["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    if (c["operator"] == "myops::fast_gelu") {
      custom = true;
      EXPECT_EQ(c["case_id"], "myops::fast_gelu/self=64x64/float32/cpu/t1/forward");
      EXPECT_EQ(c["library"], result["context"]["libraries"][0]["path"]);
    }
  }
  EXPECT_TRUE(custom);
  EXPECT_EQ(result["context"]["libraries"][0]["operators"], Json::array({"myops::fast_gelu"}));

  // Run again from the result file: the case names its library, which --from loads only when the
  // user says so (a result file from elsewhere would run its code).
  const auto refused = opbench("run --from " + out + " --dry-run");
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_NE(refused.err.find("1 case(s) (myops::fast_gelu/self=64x64/float32/cpu/t1/forward) run "
                             "operators of the library " +
                             result["context"]["libraries"][0]["path"].get<std::string>() +
                             ", which is not loaded"),
            std::string::npos)
      << refused.err;
  const auto again = opbench("run --from " + out + " --load-library " + std::string(OPBENCH_MYOPS) +
                             " --processes 1 --repetitions 1 --output " + m_dir.file("again.json") +
                             k_quick_stopping);
  EXPECT_EQ(again.code, 0) << again.err;
  const auto recorded = opbench("run --from " + out +
                                " --load-recorded-libraries --processes 1 --repetitions 1 "
                                "--output " +
                                m_dir.file("again2.json") + k_quick_stopping);
  EXPECT_EQ(recorded.code, 0) << recorded.err;
}

TEST_F(Cli, AConfigLoadsItsLibrariesRelativeToItself) {
  const std::string config = m_dir.file("mine.json");
  std::ofstream(config) << R"({"libraries": [")" << k_myops << R"("], "operators": [
    {"op": "myops::fast_gelu", "cases": [{"args": {"self": "8x8"}}]}]})";
  const auto dry = opbench("run --dry-run --config " + config);
  EXPECT_EQ(dry.code, 0) << dry.err;
  EXPECT_NE(dry.out.find("myops::fast_gelu/self=8x8/"), std::string::npos) << dry.out;

  std::ofstream(m_dir.file("relative.json")) << R"({"libraries": ["no/such/libmine.so"],
    "operators": [{"op": "myops::fast_gelu", "cases": [{"args": {"self": "8x8"}}]},
                  {"op": "myops::fast_gelu", "cases": [{"args": {"self": "4x4"}}]}]})";
  const auto missing = opbench("run --dry-run --config " + m_dir.file("relative.json"));
  EXPECT_EQ(missing.code, 2);
  // Relative to the config's directory, said once for the file's two rows.
  const std::string said = "relative.json:/libraries: cannot load operator library " +
                           m_dir.file("no/such/libmine.so") + ": no such file";
  EXPECT_NE(missing.err.find(said), std::string::npos) << missing.err;
  EXPECT_EQ(missing.err.find(said), missing.err.rfind(said)) << missing.err;
}

TEST_F(Cli, ALibraryThatCannotLoadIsAnErrorSayingWhy) {
  const auto nothing = opbench("list --all --load-library " + m_dir.file("absent.so"));
  EXPECT_EQ(nothing.code, 2);
  EXPECT_NE(nothing.err.find("--load-library: cannot load operator library " +
                             m_dir.file("absent.so") + ": no such file"),
            std::string::npos)
      << nothing.err;

  const auto text = opbench("list --all --load-library " + k_example);
  EXPECT_EQ(text.code, 2);
  EXPECT_NE(text.err.find("invalid ELF header"), std::string::npos) << text.err;

  // Built against another LibTorch: the loader's message and what it means.
  const auto other = opbench("list --all --load-library " + std::string(OPBENCH_OTHER_LIBTORCH));
  EXPECT_EQ(other.code, 2);
  EXPECT_NE(other.err.find("undefined symbol: _ZN3c1034opbench_symbol_of_another_libtorchEv"),
            std::string::npos)
      << other.err;
  EXPECT_NE(other.err.find("built against another LibTorch"), std::string::npos) << other.err;

  // A second TORCH_LIBRARY(myops): LibTorch's refusal, not a crash.
  const auto clash = opbench("list --all --load-library " + k_myops + " --load-library " +
                             std::string(OPBENCH_CLASH));
  EXPECT_EQ(clash.code, 2);
  EXPECT_NE(clash.err.find("Only a single TORCH_LIBRARY can be used to register the namespace "
                           "myops"),
            std::string::npos)
      << clash.err;
  EXPECT_EQ(clash.err.find("Exception raised from"), std::string::npos) << clash.err;
}

TEST_F(Cli, AnOperatorNoLoadedLibraryDefinesSaysWhatIsLoaded) {
  const std::string config = m_dir.file("ops.csv");
  std::ofstream(config) << "op,self\nmyops::fast_gelux,4x4\nnotmine::op,4x4\n";
  const auto r = opbench("run --dry-run --config " + config + " --load-library " + k_myops);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("ops.csv:2: LibTorch has no operator myops::fast_gelux (" + k_myops +
                       " defines myops::fast_gelu)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ops.csv:3: LibTorch has no operator notmine::op (no loaded library "
                       "defines namespace 'notmine': load the library with --load-library PATH "
                       "or the config's \"libraries\")"),
            std::string::npos)
      << r.err;
}

TEST_F(Cli, NamedDimensionsOfAnOperatorAreSweptByAxis) {
  const std::string config = m_dir.file("mm.json");
  std::ofstream(config) << R"({"operators": [{"op": "mm", "cases": [
    {"dims": {"M": 64, "K": 32, "N": 16}, "args": {"self": "MxK", "mat2": ["K", "N"]}},
    {"args": {"self": "128x32", "mat2": "32x16"}}]}]})";
  // The catalogue's sizes without --axis; the same id as the sizes written out.
  const auto plain = opbench("run --dry-run --config " + config);
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_NE(plain.out.find("mm/self=64x32,mat2=32x16/float32/cpu/t1/forward\n"), std::string::npos)
      << plain.out;
  // A cross product; the point M=128, N=16 is the second row's computation and runs once.
  const auto swept =
      opbench("run --dry-run --config " + config + " --axis M=64:256:*2 --axis N=16,32");
  ASSERT_EQ(swept.code, 0) << swept.err;
  for (const char* id :
       {"self=64x32,mat2=32x16", "self=64x32,mat2=32x32", "self=128x32,mat2=32x16",
        "self=128x32,mat2=32x32", "self=256x32,mat2=32x16", "self=256x32,mat2=32x32"})
    EXPECT_NE(swept.out.find(std::string("mm/") + id + "/float32"), std::string::npos) << id;
  EXPECT_NE(swept.err.find("6 case(s) planned"), std::string::npos) << swept.err;

  const auto unknown = opbench("run --dry-run --config " + config + " --axis Q=3");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("--axis Q: no selected operator has that named dimension"),
            std::string::npos)
      << unknown.err;
  const auto bad = opbench("run --dry-run --config " + config + " --axis M=0");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("bad --axis 'M=0': '0' is not a positive integer"), std::string::npos)
      << bad.err;

  // The example's custom operator, swept by its hidden size.
  const auto gelu = opbench("run --dry-run --load-library " + k_myops + " --config " + k_example +
                            " --shape-class common --axis H=768,1536");
  ASSERT_EQ(gelu.code, 0) << gelu.err;
  EXPECT_NE(gelu.out.find("myops::fast_gelu/self=1024x768/float32"), std::string::npos) << gelu.out;
  EXPECT_NE(gelu.out.find("gelu/self=1024x1536,approximate=tanh/float32"), std::string::npos)
      << gelu.out;
}

TEST_F(Cli, ImplementationsSideBySideAreCheckedThenComparedWithTheBaseline) {
  // The example's group: myops::fast_gelu against gelu(approximate="tanh"), both processes.
  const std::string out = m_dir.file("variants.json");
  const auto run = opbench("run --load-library " + k_myops + " --config " + k_example +
                           " --shape-class small --repetitions 4 --processes 2 --output " + out +
                           k_quick_stopping);
  ASSERT_EQ(run.code, 0) << run.err;
  const Json result = read_json(out);
  for (const auto& c : result["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_EQ(c["variant"]["group"], "gelu_tanh");
    if (c["operator"] == "myops::fast_gelu") {
      EXPECT_EQ(c["variant"]["baseline_id"],
                "gelu/self=64x64,approximate=tanh/float32/cpu/t1/forward");
    }
  }
  const auto md = opbench("export --format variants --input " + out);
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_NE(
      md.out.find("| gelu_tanh | `gelu/self=64x64,approximate=tanh/float32/cpu/t1/forward` | "),
      std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("| `myops::fast_gelu/self=64x64/float32/cpu/t1/forward` | "),
            std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("| gelu_tanh | myops::fast_gelu | 1 | x"), std::string::npos) << md.out;

  // gelu without the approximation is another computation: held against it, the custom operator
  // is an error before it is timed, and the run goes on.
  const std::string config = m_dir.file("wrong.json");
  std::ofstream(config) << R"({"variants": [{"name": "g", "implementations": [{"op": "gelu"},
    {"op": "myops::fast_gelu"}], "cases": [{"args": {"self": "64x64"}}]}]})";
  const auto wrong =
      opbench("run --load-library " + k_myops + " --config " + config +
              " --repetitions 1 --processes 1 --output " + m_dir.file("w.json") + k_quick_stopping);
  EXPECT_EQ(wrong.code, 1) << wrong.err;
  const Json cases = read_json(m_dir.file("w.json"))["cases"];
  for (const auto& c : cases) {
    if (c["operator"] == "myops::fast_gelu") {
      EXPECT_EQ(c["status"], "error");
      EXPECT_NE(
          c["message"].get<std::string>().find(
              "its outputs differ from the baseline gelu/self=64x64/float32/cpu/t1/forward's"),
          std::string::npos)
          << c["message"];
    } else {
      EXPECT_EQ(c["status"], "ok");
    }
  }
}

} // namespace
} // namespace opbench
