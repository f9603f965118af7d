// Stages (include/opbench/stages/stages.hpp): each runs a sample and an operator, is checked
// against eager, and says why when it cannot run; the output check holds outputs to the dtype's
// tolerance.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <ATen/ATen.h>

#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiled_artifacts.hpp"
#include "opbench/catalog/binder.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/strings.hpp"
#include "opbench/exec/case_function.hpp"
#include "opbench/exec/executor.hpp"
#include "opbench/measure/output_check.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/stages/size_free.hpp"
#include "opbench/stages/stages.hpp"
#include "quick_exec.hpp"
#include "temp_dir.hpp"

namespace opbench::stages {

using exec::run_case;
using measure::ExecOptions;
using measure::outputs_differ;
using measure::quick_exec_options;
using measure::SkipCase;
using measure::tolerance_for;
using measure::Workload;

namespace {

ExecOptions quick() {
  return quick_exec_options();
}

results::Case sample_case(const std::string& name, const Json& sizes, const std::string& stage) {
  results::Case c;
  c.name = name;
  c.kind = results::Kind::sample;
  c.op = name;
  c.given = {{"sizes", sizes}};
  c.dtype = "float32";
  c.device = "cpu";
  c.direction = results::Direction::forward;
  c.stage = core::parse_name_or_throw<results::Stage>(stage, "stage", "test");
  c.seed = 7;
  c.case_id = results::make_case_id(name, c.given, c.dtype, c.device, 1, c.direction, "contiguous",
                                    c.stage);
  return c;
}

results::Case op_case(const std::string& op, const Json& args, const std::string& stage) {
  return plan::make_case(op, catalog::bind_case(op, args, "test"), "float32", "cpu", 1,
                         results::Direction::forward, 7, "contiguous",
                         core::parse_name_or_throw<results::Stage>(stage, "stage", "test"));
}

TEST(Stages, ScriptRunsTheTracedSampleAndMatchesEager) {
  const auto eager = run_case(sample_case("bbox2delta", {64}, "eager"), quick());
  const auto script = run_case(sample_case("bbox2delta", {64}, "script"), quick());
  ASSERT_EQ(eager.status, results::Status::ok) << eager.message;
  ASSERT_EQ(script.status, results::Status::ok) << script.message;
  EXPECT_FALSE(eager.stage_info.has_value());
  ASSERT_TRUE(script.stage_info.has_value());
  EXPECT_EQ(script.stage_info->runner, "torchscript");
  EXPECT_EQ(script.timing.call_path, results::CallPath::script);
  EXPECT_EQ(script.stage_info->fusion_groups, 0);
  EXPECT_GT(*script.stage_info->graph_ops, 0);
  EXPECT_LE(script.stage_info->check, 1.0);
  // Making it (the trace, the profiling runs, the optimization) took a measured time.
  ASSERT_TRUE(script.stage_info->compile_time.has_value());
  EXPECT_GT(*script.stage_info->compile_time, 0);
  EXPECT_LT(*script.stage_info->compile_time, 60);
  EXPECT_FALSE(script.stage_info->compile_cached);
  // The graph executor's calls are ATen calls too; the work is eager's (the same computation).
  ASSERT_TRUE(script.work.aten_calls.has_value());
  EXPECT_GT(*script.work.aten_calls, 0);
  EXPECT_EQ(script.work.bytes, eager.work.bytes);
  EXPECT_GT(script.estimate.median, 0);
}

TEST(Stages, FusedFormsFusionGroupsOnTheCpuAndMatchesEager) {
  const auto fused = run_case(sample_case("bbox2delta", {64}, "fused"), quick());
  ASSERT_EQ(fused.status, results::Status::ok) << fused.message;
  ASSERT_TRUE(fused.stage_info.has_value());
  EXPECT_EQ(fused.stage_info->runner, "torchscript+onednn_graph");
  EXPECT_GT(*fused.stage_info->fusion_groups, 0);
  EXPECT_GT(*fused.stage_info->fused_ops, *fused.stage_info->fusion_groups);
  EXPECT_LE(fused.stage_info->check, 1.0);
  EXPECT_EQ(fused.stage_info->tolerance, "|d| <= 1e-05 + 0.0001 * max|eager|");
  // Fused kernels are no ATen calls: fewer calls than the script stage of the same graph.
  const auto script = run_case(sample_case("bbox2delta", {64}, "script"), quick());
  ASSERT_EQ(script.status, results::Status::ok) << script.message;
  EXPECT_LT(*fused.work.aten_calls, *script.work.aten_calls);
  // A sample graph with nothing for the fuser is timed all the same, and says so.
  const auto plain = run_case(sample_case("box_iou", {16, 4, 8, 4}, "fused"), quick());
  ASSERT_EQ(plain.status, results::Status::ok) << plain.message;
  EXPECT_EQ(plain.stage_info->fusion_groups, 0);
  EXPECT_NE(plain.stage_info->note.find("found nothing to fuse"), std::string::npos)
      << plain.stage_info->note;
  EXPECT_NE(plain.stage_info->note.find("the script graph timed again"), std::string::npos);
}

TEST(Stages, AnOperatorRunsAsScriptAndNothingToFuseIsSkippedSayingSo) {
  const auto script =
      run_case(op_case("mul", {{"self", "64x64"}, {"other", "64x64"}}, "script"), quick());
  ASSERT_EQ(script.status, results::Status::ok) << script.message;
  EXPECT_EQ(script.work.aten_calls, 1);
  const auto fused =
      run_case(op_case("mm", {{"self", "16x16"}, {"mat2", "16x16"}}, "fused"), quick());
  if (fused.status == results::Status::skipped) {
    EXPECT_NE(fused.message.find("found nothing to fuse"), std::string::npos) << fused.message;
  } else {
    ASSERT_EQ(fused.status, results::Status::ok) << fused.message;
    EXPECT_GT(*fused.stage_info->fusion_groups, 0);
  }
  const auto alone = run_case(op_case("cumsum", {{"self", "64"}, {"dim", 0}}, "fused"), quick());
  EXPECT_EQ(alone.status, results::Status::skipped);
  EXPECT_NE(alone.message.find("found nothing to fuse"), std::string::npos) << alone.message;
}

TEST(Stages, AComputationThatWritesItsInputIsCheckedOnCopiesFromItsMadeInputs) {
  // An in-place body returns the input it wrote. Before 2026-11-25 eager's reference was that very
  // tensor, which every later run overwrote: the checks compared a tensor with itself and passed
  // whatever was computed. Now each eager call and graph run starts from the made input
  // (TensorFunction::restore) and eager's outputs are copies.
  const results::Case c = op_case("exp_", {{"self", "64"}}, "script");
  const at::Tensor made = at::rand({64});
  const at::Tensor x = made.clone();
  TensorFunction f;
  f.inputs = {x};
  f.restore.run = [x, made] { x.copy_(made); };
  f.restore.arguments = {"self"};
  // Two eager calls that differ (one more factor each call, a host value): caught.
  auto factor = std::make_shared<double>(2.0);
  f.body = [factor](const std::vector<at::Tensor>& in) {
    return std::vector<at::Tensor>{in[0].mul_((*factor)++)};
  };
  try {
    (void)staged_workload(c, f);
    FAIL() << "two different eager outputs were taken as one";
  } catch (const SkipCase& e) {
    EXPECT_NE(
        std::string(e.what()).find("two eager calls with the same seed give different outputs"),
        std::string::npos)
        << e.what();
  }
  // The same factor every call: checked, and every run started from the made input, so the input
  // holds one call's result however many runs the checks and the profiling made.
  f.body = [](const std::vector<at::Tensor>& in) {
    return std::vector<at::Tensor>{in[0].mul_(2.0)};
  };
  const Workload w = staged_workload(c, f);
  EXPECT_TRUE(at::equal(x, made * 2.0));
  EXPECT_EQ(w.restore.arguments, std::vector<std::string>{"self"});
}

TEST(Stages, AnInPlaceOperatorRunsAsScriptFromItsMadeInputs) {
  const auto script = run_case(op_case("exp_", {{"self", "64"}}, "script"), quick());
  ASSERT_EQ(script.status, results::Status::ok) << script.message;
  ASSERT_TRUE(script.stage_info.has_value());
  EXPECT_LE(script.stage_info->check, 1.0);
  EXPECT_EQ(script.timing.restored, std::vector<std::string>{"self"});
}

TEST(Stages, GraphStageIsForCudaOnlyAndBackwardIsNotStaged) {
  const auto graph = run_case(sample_case("bbox2delta", {64}, "graph"), quick());
  EXPECT_EQ(graph.status, results::Status::skipped);
  EXPECT_NE(graph.message.find("CUDA devices only"), std::string::npos) << graph.message;
  results::Case backward = sample_case("bbox2delta", {64}, "script");
  backward.direction = results::Direction::backward;
  const auto b = run_case(backward, quick());
  EXPECT_EQ(b.status, results::Status::skipped);
  EXPECT_NE(b.message.find("forward direction only"), std::string::npos) << b.message;
}

TEST(Stages, RandomDrawsAreSeededSoTheStageMatchesEager) {
  // bernoulli draws from the default generator: eager and the trace draw the same numbers from
  // the same seed.
  const auto script = run_case(
      op_case("bernoulli", {{"self", {{"shape", {256}}, {"init", "uniform"}}}}, "script"), quick());
  ASSERT_EQ(script.status, results::Status::ok) << script.message;
  EXPECT_EQ(script.stage_info->check, 0.0);
}

// The inductor stage compiles with the set-up's Python (scripts/aoti_compile.py), whose torch is
// the LibTorch's version (scripts/test-second-libtorch.sh points it at the second LibTorch's). Its
// packages go to a cache of the test's own.
// The files of `dir` whose names end in `ending` (full paths).
std::vector<std::string> files_in(const std::string& dir, const std::string& ending) {
  std::vector<std::string> out;
  for (const auto& path : core::list_directory(dir)) {
    if (core::ends_with(path, ending))
      out.push_back(path);
  }
  return out;
}

// The packages (.pt2) in the test's cache.
std::vector<std::string> packages_in(const std::string& cache) {
  return files_in(cache + "/aoti", ".pt2");
}

class InductorStage : public ::testing::Test {
protected:
  void SetUp() override { ::setenv("OPBENCH_CACHE_DIR", m_cache.path().c_str(), 1); }
  void TearDown() override { ::unsetenv("OPBENCH_CACHE_DIR"); }
  testing::TempDir m_cache;
};

TEST_F(InductorStage, ASampleRunsAsOneCompiledPackageAndMatchesEager) {
  const auto eager = run_case(sample_case("bbox2delta", {64}, "eager"), quick());
  const auto compiled = run_case(sample_case("bbox2delta", {64}, "inductor"), quick());
  ASSERT_EQ(eager.status, results::Status::ok) << eager.message;
  ASSERT_EQ(compiled.status, results::Status::ok) << compiled.message;
  ASSERT_TRUE(compiled.stage_info.has_value());
  EXPECT_EQ(compiled.stage_info->runner, "aotinductor");
  EXPECT_EQ(compiled.timing.call_path, results::CallPath::inductor);
  EXPECT_GT(*compiled.stage_info->graph_ops, 0);
  EXPECT_LE(compiled.stage_info->check, 1.0);
  EXPECT_EQ(compiled.work.bytes, eager.work.bytes); // the work is eager's (the same computation)
  // Inductor's kernels are no ATen calls: the 37 calls of eager became fewer.
  EXPECT_LT(*compiled.work.aten_calls, *eager.work.aten_calls);
  // The package is kept: the next run (every repetition and process) loads it.
  EXPECT_EQ(packages_in(m_cache.path()).size(), 1u);
  // Its compile time is measured (Python and the compiler: seconds), kept beside the package,
  // and reported again, marked cached, when the next run loads it.
  ASSERT_TRUE(compiled.stage_info->compile_time.has_value());
  EXPECT_GT(*compiled.stage_info->compile_time, 0.5);
  EXPECT_FALSE(compiled.stage_info->compile_cached);
  const auto again = run_case(sample_case("bbox2delta", {64}, "inductor"), quick());
  ASSERT_EQ(again.status, results::Status::ok) << again.message;
  EXPECT_TRUE(again.stage_info->compile_cached);
  ASSERT_TRUE(again.stage_info->compile_time.has_value());
  EXPECT_NEAR(*again.stage_info->compile_time, *compiled.stage_info->compile_time,
              0.5 * *compiled.stage_info->compile_time);
  // A package corrupted in the cache (or swapped for another) is never loaded: it is compiled
  // again, and the case runs (issue #59: it segfaulted every run until deleted).
  const std::string package = packages_in(m_cache.path()).front();
  const std::string bytes = core::read_file(package);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  core::write_atomically(package, std::string(bytes.size(), '\0'));
  const auto rebuilt = run_case(sample_case("bbox2delta", {64}, "inductor"), quick());
  ASSERT_EQ(rebuilt.status, results::Status::ok) << rebuilt.message;
  EXPECT_FALSE(rebuilt.stage_info->compile_cached);
  EXPECT_TRUE(verified(package)); // the new one
}

// inductor-dynamic: one package, compiled from the first size, serves the sample's other sizes,
// each checked against eager; a size where it does not reproduce eager is skipped, naming the
// size it was made for. An operator case has its own sizes: skipped.
TEST_F(InductorStage, DynamicIsOnePackageForEverySizeOfASample) {
  const auto first = run_case(sample_case("bbox2delta", {64}, "inductor-dynamic"), quick());
  ASSERT_EQ(first.status, results::Status::ok) << first.message;
  EXPECT_EQ(first.stage_info->runner, "aotinductor (dynamic shapes)");
  EXPECT_FALSE(first.stage_info->compile_cached);
  const auto other = run_case(sample_case("bbox2delta", {8}, "inductor-dynamic"), quick());
  ASSERT_EQ(other.status, results::Status::ok) << other.message;
  EXPECT_TRUE(other.stage_info->compile_cached);
  EXPECT_LE(other.stage_info->check, 1.0);
  EXPECT_EQ(other.stage_info->tolerance, "|d| <= 1e-05 + 0.0001 * max|eager|");
  const std::vector<std::string> dynamic = packages_in(m_cache.path());
  ASSERT_EQ(dynamic.size(), 1u);
  // bbox2roi's trace keeps the box count it was traced at (each image's index column is an
  // at::full of a size read on the host): at 32 boxes its package gives 4 x 64 rows, which the
  // check against eager refuses.
  const auto made = run_case(sample_case("bbox2roi", {64}, "inductor-dynamic"), quick());
  ASSERT_EQ(made.status, results::Status::ok) << made.message;
  const auto refused = run_case(sample_case("bbox2roi", {32}, "inductor-dynamic"), quick());
  EXPECT_EQ(refused.status, results::Status::skipped) << refused.message;
  EXPECT_NE(refused.message.find("the package compiled for bbox2roi/sizes=[64] does not "
                                 "reproduce eager at these sizes"),
            std::string::npos)
      << refused.message;
  const auto op = run_case(op_case("relu", {{"self", "64x64"}}, "inductor-dynamic"), quick());
  EXPECT_EQ(op.status, results::Status::skipped);
  EXPECT_NE(op.message.find("(use inductor)"), std::string::npos) << op.message;
  // The same package made once for a replay (size_free.hpp), called at another size's inputs.
  const auto made_once =
      stages::size_free_stage(sample_case("bbox2delta", {64}, "inductor-dynamic"),
                              exec::case_function(sample_case("bbox2delta", {64}, "eager")));
  EXPECT_TRUE(made_once.cached);
  EXPECT_EQ(made_once.made_from, sample_case("bbox2delta", {64}, "inductor-dynamic").case_id);
  EXPECT_FALSE(made_once.plans);
  const auto at_8 = exec::case_function(sample_case("bbox2delta", {8}, "eager"));
  EXPECT_EQ(made_once.refuses(at_8.inputs), "");
  double worst = 0;
  EXPECT_EQ(outputs_differ(at_8.body(at_8.inputs), made_once.call(at_8.inputs), worst), "");
}

// bucket2bbox's package made at 2000 boxes fails a bounds check in its generated kernel at 1000
// (inside an OpenMP region: std::terminate). That is found in a process of its own, and the case
// is skipped saying so, while this one goes on; the probe's outcome is kept beside the package.
TEST_F(InductorStage, ADynamicPackageThatAbortsAtOtherSizesIsProbedInAProcessOfItsOwn) {
  const auto made = run_case(sample_case("bucket2bbox", {2000}, "inductor-dynamic"), quick());
  ASSERT_EQ(made.status, results::Status::ok) << made.message;
  // The loader unpacks the package under TMPDIR; the probe that aborts leaves nothing there.
  testing::TempDir tmp;
  std::optional<results::CaseResult> probed;
  {
    // TMPDIR is this test's while the probe runs, and put back as it was however it ends.
    struct Tmpdir {
      std::optional<std::string> before;
      explicit Tmpdir(const std::string& path) {
        if (const char* was = std::getenv("TMPDIR"))
          before = was;
        ::setenv("TMPDIR", path.c_str(), 1);
      }
      ~Tmpdir() { before ? ::setenv("TMPDIR", before->c_str(), 1) : ::unsetenv("TMPDIR"); }
    } tmpdir(tmp.path());
    probed = run_case(sample_case("bucket2bbox", {1000}, "inductor-dynamic"), quick());
  }
  const results::CaseResult& refused = *probed;
  EXPECT_TRUE(core::list_directory(tmp.path()).empty());
  for (const auto& path : core::list_directory(m_cache.path() + "/aoti"))
    EXPECT_FALSE(core::ends_with(path, ".tmp")) << path;
  EXPECT_EQ(refused.status, results::Status::skipped) << refused.message;
  EXPECT_NE(refused.message.find("the package compiled for bucket2bbox/sizes=[2000] does not take "
                                 "these sizes"),
            std::string::npos)
      << refused.message;
  EXPECT_NE(refused.message.find("index out of bounds"), std::string::npos) << refused.message;
  EXPECT_NE(refused.message.find("(this ends the process that runs it: signal 6 (Aborted))"),
            std::string::npos)
      << refused.message;
  EXPECT_EQ(packages_in(m_cache.path()).size(), 1u);
  std::size_t probes = 0;
  for (const auto& path : core::list_directory(m_cache.path() + "/aoti"))
    probes += path.find(".pt2.probe-") != std::string::npos ? 1 : 0;
  EXPECT_EQ(probes, 1u);
  const auto again = run_case(sample_case("bucket2bbox", {1000}, "inductor-dynamic"), quick());
  EXPECT_EQ(again.message, refused.message);
  // A replay (size_free.hpp) is told so before it calls the package at that size.
  const auto made_once =
      stages::size_free_stage(sample_case("bucket2bbox", {2000}, "inductor-dynamic"),
                              exec::case_function(sample_case("bucket2bbox", {2000}, "eager")));
  const auto at_1000 = exec::case_function(sample_case("bucket2bbox", {1000}, "eager"));
  EXPECT_NE(made_once.refuses(at_1000.inputs).find("index out of bounds"), std::string::npos);
}

// script-dynamic: the trace of the first size, kept in the cache, run by one TorchScript function
// at every size of the sample (the fuser in dynamic-shape mode), checked against eager at each; a
// size the trace keeps fixed is skipped naming the size it was traced at.
using ScriptDynamicStage = InductorStage; // a cache of its own

TEST_F(ScriptDynamicStage, OneTraceServesEverySizeOfASample) {
  const auto first = run_case(sample_case("bbox2delta", {64}, "script-dynamic"), quick());
  ASSERT_EQ(first.status, results::Status::ok) << first.message;
  EXPECT_EQ(first.stage_info->runner, "torchscript+onednn_graph (dynamic shapes)");
  EXPECT_EQ(first.timing.call_path, results::CallPath::fused);
  ASSERT_TRUE(first.stage_info->compile_time.has_value());
  EXPECT_GT(*first.stage_info->compile_time, 0);
  const auto other = run_case(sample_case("bbox2delta", {8}, "script-dynamic"), quick());
  ASSERT_EQ(other.status, results::Status::ok) << other.message;
  EXPECT_LE(other.stage_info->check, 1.0);
  const std::vector<std::string> traces = files_in(m_cache.path() + "/script", ".pt");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_NE(core::read_file(traces[0] + ".json").find("\"traced_from\":\"bbox2delta/sizes=[64]/"),
            std::string::npos);
  const auto made = run_case(sample_case("bbox2roi", {64}, "script-dynamic"), quick());
  ASSERT_EQ(made.status, results::Status::ok) << made.message;
  const auto refused = run_case(sample_case("bbox2roi", {32}, "script-dynamic"), quick());
  EXPECT_EQ(refused.status, results::Status::skipped) << refused.message;
  // bbox2roi's trace keeps its box count (see above): at 32 boxes its index column of 64 rows no
  // longer fits the boxes beside it.
  EXPECT_NE(refused.message.find("the trace made at bbox2roi/sizes=[64] does not take these sizes: "
                                 "Sizes of tensors must match"),
            std::string::npos)
      << refused.message;
  // A later repetition (no check against eager) finds it too, as a skip: whichever repetition a
  // process runs first says the same.
  ExecOptions later = quick();
  later.repetition = 1;
  const auto unchecked = run_case(sample_case("bbox2roi", {32}, "script-dynamic"), later);
  EXPECT_EQ(unchecked.status, results::Status::skipped) << unchecked.message;
  EXPECT_EQ(unchecked.message, refused.message);
  const auto op = run_case(op_case("relu", {{"self", "64x64"}}, "script-dynamic"), quick());
  EXPECT_EQ(op.status, results::Status::skipped);
  EXPECT_NE(op.message.find("(use fused)"), std::string::npos) << op.message;
  // Made for a replay (size_free.hpp): the one function this process's cases above ran, its
  // plans counted; every size is taken and gives eager's outputs.
  const auto made_once =
      stages::size_free_stage(sample_case("bbox2delta", {64}, "script-dynamic"),
                              exec::case_function(sample_case("bbox2delta", {64}, "eager")));
  ASSERT_TRUE(made_once.plans);
  const int before = made_once.plans();
  EXPECT_GE(before, 1); // the cases above made the first
  for (const int size : {64, 8, 64, 8}) {
    const auto f = exec::case_function(sample_case("bbox2delta", {size}, "eager"));
    EXPECT_EQ(made_once.refuses(f.inputs), "");
    double worst = 0;
    EXPECT_EQ(outputs_differ(f.body(f.inputs), made_once.call(f.inputs), worst), "") << size;
  }
  EXPECT_GE(made_once.plans(), before);
  EXPECT_THROW(
      stages::size_free_stage(sample_case("bbox2delta", {64}, "fused"),
                              exec::case_function(sample_case("bbox2delta", {64}, "eager"))),
      SkipCase);
}

// Two processes that make the same artifact at once: the first one published stays, with its own
// sidecar; the second learns it lost, and its file is gone (it reads the winner's sidecar).
TEST(CompiledArtifacts, TheFirstPublishedStaysWithItsOwnSidecar) {
  testing::TempDir dir;
  const std::string path = dir.file("a.pt2");
  EXPECT_TRUE(publish(dir.write("a.pt2.1", "first"), path, Json{{"by", 1}}));
  EXPECT_FALSE(publish(dir.write("a.pt2.2", "second"), path, Json{{"by", 2}}));
  EXPECT_EQ(core::read_file(path), "first");
  const Json about = read_sidecar(path);
  EXPECT_EQ(about["by"], 1);
  EXPECT_EQ(about["bytes"], 5);
  EXPECT_EQ(about["digest"].get<std::string>().rfind("fnv1a64:", 0), 0u);
  EXPECT_FALSE(core::path_exists(dir.file("a.pt2.1")));
  EXPECT_FALSE(core::path_exists(dir.file("a.pt2.2")));
}

// A cached artifact is loaded only when it is the file its sidecar describes (issue #59: a
// corrupted package segfaulted every run until it was deleted; a swapped one was taken for the
// sample's own).
TEST(CompiledArtifacts, OnlyTheFilePublishedIsVerifiedAndADiscardTakesItsProbesToo) {
  testing::TempDir dir;
  const std::string path = dir.file("b.pt2");
  ASSERT_TRUE(publish(dir.write("b.pt2.1", "compiled bytes"), path, Json{{"compile_time", 3.5}}));
  EXPECT_TRUE(verified(path));
  std::this_thread::sleep_for(std::chrono::milliseconds(20)); // another modification time
  dir.write("b.pt2", "compiled bytez");                       // corrupted, same size
  EXPECT_FALSE(verified(path));
  const std::string unpublished = dir.write("c.pt2", "made before digests");
  EXPECT_FALSE(verified(unpublished));
  dir.write("b.pt2.probe-0123", "{}");
  discard(path);
  EXPECT_FALSE(core::path_exists(path));
  EXPECT_FALSE(core::path_exists(path + ".json"));
  EXPECT_FALSE(core::path_exists(dir.file("b.pt2.probe-0123")));
  EXPECT_EQ(sidecar_seconds(Json{{"compile_time", 3.5}}, "compile_time"), 3.5);
  EXPECT_FALSE(sidecar_seconds(Json{{"compile_time", -5.0}}, "compile_time"));
  EXPECT_FALSE(sidecar_seconds(Json{{"compile_time", 1e30}}, "compile_time"));
  EXPECT_FALSE(sidecar_seconds(Json{{"compile_time", "7"}}, "compile_time"));
}

// What a compiling or probing process that died left in the cache goes; what a live process is
// making, and the cache's own files, stay.
TEST(CompiledArtifacts, WhatDeadProcessesLeftIsRemoved) {
  testing::TempDir dir;
  const std::string dead = "999999999"; // over any pid_max: no such process
  const std::string live = std::to_string(::getpid());
  const std::vector<std::string> kept = {"a.pt2", "a.pt2.json", "a.pt2.probe-0f",
                                         "a." + live + ".pt2", "a.pt2.probe-0f." + live + ".err"};
  for (const std::string& name : kept)
    dir.write(name, "x");
  for (const std::string& name :
       {"a." + dead + ".trace.pt", "a.pt2.probe-0f." + dead + ".inputs.pt",
        "a.pt2.probe-0f." + dead + ".err"})
    dir.write(name, "x");
  const std::string scratch = dir.file("a.pt2.probe-0f." + dead + ".tmp");
  core::create_directories(scratch + "/unpacked");
  remove_orphans(dir.path());
  std::vector<std::string> left;
  for (const std::string& file : core::list_directory(dir.path()))
    left.push_back(core::filename(file));
  std::sort(left.begin(), left.end());
  std::vector<std::string> expected = kept;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(left, expected);
}

TEST_F(InductorStage, RandomDrawsAreSkippedAndAnOperatorRuns) {
  const auto random = run_case(
      op_case("bernoulli", {{"self", {{"shape", {256}}, {"init", "uniform"}}}}, "inductor"),
      quick());
  EXPECT_EQ(random.status, results::Status::skipped);
  EXPECT_NE(random.message.find("draws random numbers (aten::bernoulli)"), std::string::npos)
      << random.message;
  const auto relu = run_case(op_case("relu", {{"self", "64x64"}}, "inductor"), quick());
  ASSERT_EQ(relu.status, results::Status::ok) << relu.message;
  EXPECT_EQ(relu.stage_info->check, 0.0);
}

TEST_F(InductorStage, APythonThatCannotCompileIsSaidAndSkips) {
  ::setenv("OPBENCH_PYTHON", "/nonexistent/python", 1);
  const auto r = run_case(op_case("relu", {{"self", "64x64"}}, "inductor"), quick());
  ::unsetenv("OPBENCH_PYTHON");
  EXPECT_EQ(r.status, results::Status::skipped);
  EXPECT_NE(r.message.find("/nonexistent/python"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("did not run (set OPBENCH_PYTHON)"), std::string::npos) << r.message;
}

TEST(OutputCheck, ToleranceFollowsTheDtype) {
  EXPECT_EQ(tolerance_for(at::kFloat).text(), "|d| <= 1e-05 + 0.0001 * max|eager|");
  EXPECT_EQ(tolerance_for(at::kBFloat16).rtol, 1.6e-2);
  EXPECT_TRUE(tolerance_for(at::kLong).exact);
  EXPECT_EQ(tolerance_for(at::kBool).text(), "exact");
}

TEST(OutputCheck, PassesWithinToleranceAndNamesWhatDiffers) {
  const at::Tensor a = at::tensor({1.0f, 2.0f, NAN});
  double worst = 0;
  EXPECT_EQ(outputs_differ({a}, {a.clone()}, worst), "");
  EXPECT_EQ(worst, 0.0);
  // ~1e-6 off (the float32 next to 1 + 1e-6); the largest finite |value| is 2: |d| / (1e-5 + 1e-4 *
  // 2).
  worst = 0;
  EXPECT_EQ(outputs_differ({a}, {a + at::tensor({1e-6f, 0.0f, 0.0f})}, worst), "");
  const double off = static_cast<double>((1.0f + 1e-6f) - 1.0f);
  EXPECT_NEAR(worst, off / (1e-5 + 1e-4 * 2), 1e-9);
  worst = 0;
  const std::string beyond = outputs_differ({a}, {a + at::tensor({0.0f, 1e-3f, 0.0f})}, worst);
  EXPECT_NE(beyond.find("output 0: 1 of 3 elements beyond |d| <= 1e-05 + 0.0001 * max|eager|"),
            std::string::npos)
      << beyond;
  EXPECT_GT(worst, 1.0);
  EXPECT_NE(outputs_differ({a}, {at::zeros({2})}, worst).find("shape 2 where eager's is 3"),
            std::string::npos);
  EXPECT_NE(outputs_differ({a}, {a, a}, worst).find("2 outputs where eager has 1"),
            std::string::npos);
  EXPECT_NE(outputs_differ({a}, {a.to(at::kDouble)}, worst).find("dtype Double"),
            std::string::npos);
  // Norm-wise: a small element may err by what the largest one allows (a cancelled sum).
  EXPECT_EQ(outputs_differ({at::tensor({1000.0f, 0.001f})}, {at::tensor({1000.0f, 0.05f})}, worst),
            "");
  EXPECT_EQ(outputs_differ({at::tensor({INFINITY, 1.0f})}, {at::tensor({INFINITY, 1.0f})}, worst),
            "");
  EXPECT_NE(outputs_differ({at::tensor({INFINITY, 1.0f})}, {at::tensor({1.0f, 1.0f})}, worst), "");
  const at::Tensor i = at::arange(4);
  EXPECT_EQ(outputs_differ({i}, {i.clone()}, worst), "");
  EXPECT_NE(
      outputs_differ({i}, {i + 1}, worst).find("4 of 4 elements differ (exact match expected)"),
      std::string::npos);
}

} // namespace
} // namespace opbench::stages
