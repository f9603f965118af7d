#include <gtest/gtest.h>

#include "opbench/core/error.hpp"
#include "opbench/results/case.hpp"

namespace opbench::results {

TEST(CaseId, ReadableAndStable) {
  Json given = Json::object();
  given["input"] = {{"shape", {32, 3, 224, 224}}};
  given["weight"] = {{"shape", {64, 3, 3, 3}}};
  given["stride"] = {2, 2};
  EXPECT_EQ(make_case_id("conv2d", given, "float32", "cpu", 4, Direction::forward),
            "conv2d/input=32x3x224x224,weight=64x3x3x3,stride=[2,2]/float32/cpu/t4/forward");
}

TEST(CaseId, TensorDtypeScalarsListsAndNoArguments) {
  Json given = Json::object();
  given["self"] = {{"shape", Json::array()}};
  given["index"] = {{"shape", {8}}, {"dtype", "int64"}, {"init", "randint"}};
  given["dim"] = 1;
  given["reduce"] = "mean";
  given["tensors"] = Json::array({{{"shape", {2, 3}}}, {{"shape", {2, 3}}}});
  EXPECT_EQ(make_case_id("x", given, "float16", "cuda:0", 1, Direction::backward),
            "x/self=scalar,index=8:int64:randint,dim=1,reduce=mean,tensors=(2x3;2x3)/float16/"
            "cuda:0/t1/backward");
  EXPECT_EQ(make_case_id("y", Json::object(), "float32", "cpu", 1, Direction::forward),
            "y/-/float32/cpu/t1/forward");
}

TEST(CaseId, MemoryFormatSegmentOnlyWhenNotContiguous) {
  Json given = {{"self", {{"shape", {1, 4, 8, 8}}}}};
  EXPECT_EQ(make_case_id("relu", given, "float32", "cpu", 1, Direction::forward),
            "relu/self=1x4x8x8/float32/cpu/t1/forward");
  EXPECT_EQ(make_case_id("relu", given, "float32", "cpu", 1, Direction::forward, "channels_last"),
            "relu/self=1x4x8x8/float32/cpu/t1/forward/channels_last");
  EXPECT_TRUE(has_4d_or_5d_tensor(given));
  EXPECT_FALSE(has_4d_or_5d_tensor({{"self", {{"shape", {4, 8}}}}, {"dim", 1}}));
  EXPECT_TRUE(has_4d_or_5d_tensor({{"tensors", Json::array({{{"shape", {1, 2, 3, 4, 5}}}})}}));
}

TEST(CaseId, StageSegmentOnlyWhenNotEagerAndTheEagerIdComesBack) {
  Json given = {{"sizes", {8}}};
  EXPECT_EQ(make_case_id("box_iou", given, "float32", "cpu", 1, Direction::forward, "contiguous",
                         Stage::eager),
            "box_iou/sizes=[8]/float32/cpu/t1/forward");
  Case c;
  c.stage = results::Stage::fused;
  c.case_id = make_case_id("relu", {{"self", {{"shape", {1, 4, 8, 8}}}}}, "float32", "cpu", 1,
                           Direction::forward, "channels_last", c.stage);
  EXPECT_EQ(c.case_id, "relu/self=1x4x8x8/float32/cpu/t1/forward/channels_last/fused");
  EXPECT_EQ(eager_case_id(c), "relu/self=1x4x8x8/float32/cpu/t1/forward/channels_last");
  c.stage = results::Stage::eager;
  EXPECT_EQ(eager_case_id(c), c.case_id);
  EXPECT_EQ(core::names_of<Stage>().front(), "eager");
}

TEST(Case, JsonRoundTrip) {
  Case c;
  c.case_id = "add/self=2,other=2/float32/cpu/t1/forward";
  c.name = "add";
  c.kind = results::Kind::op;
  c.op = "aten::add.Tensor";
  c.schema = "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";
  c.given = {{"self", {{"shape", {2}}}}, {"other", {{"shape", {2}}}}};
  c.arguments = c.given;
  c.arguments["alpha"] = 1;
  c.origin = "configs/ops/x.csv:2";
  c.dtype = "float32";
  c.device = "cpu";
  c.threads = 3;
  c.direction = results::Direction::forward;
  c.seed = 42;
  c.stage = results::Stage::script;
  const Case back = case_from_json(to_json(c), "test");
  EXPECT_EQ(back.stage, results::Stage::script);
  Json unknown = to_json(c);
  unknown["stage"] = "jit";
  try {
    case_from_json(unknown, "r.json: case 3");
    ADD_FAILURE() << "an unknown stage was read";
  } catch (const ResultsError& e) {
    EXPECT_EQ(std::string(e.what()),
              "r.json: case 3: unknown stage 'jit' (valid: eager, script, fused, graph, inductor, "
              "script-dynamic, inductor-dynamic)");
  }
  Json old = to_json(c);
  old.erase("stage");
  EXPECT_EQ(case_from_json(old, "test").stage, results::Stage::eager);
  EXPECT_EQ(back.case_id, c.case_id);
  EXPECT_EQ(back.op, c.op);
  EXPECT_EQ(back.given, c.given);
  EXPECT_EQ(back.arguments, c.arguments);
  EXPECT_EQ(back.threads, 3);
  EXPECT_EQ(back.seed, 42u);
  EXPECT_THROW(case_from_json(Json::object(), "test"), ResultsError);
}

} // namespace opbench::results
