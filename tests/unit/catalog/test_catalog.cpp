#include <gtest/gtest.h>

#include "opbench/catalog/catalog.hpp"
#include "opbench/core/error.hpp"
#include "opbench/plan/planner.hpp"
#include "temp_dir.hpp"

namespace opbench {
namespace {

using testing::TempDir;

TEST(Catalog, GroupsRowsByNameWithTagsAndCategory) {
  TempDir dir;
  const auto csv = dir.write("a.csv",
                             "op,category,tags,shape_class,self,other\n"
                             "add,arith,ew,small,[4],[4]\n"
                             "add,arith,bc,large,64x64,[64]\n"
                             "relu,act,ew,small,[4],\n");
  const auto catalog = catalog::load_catalog({csv});
  ASSERT_EQ(catalog.entries.size(), 2u);
  const auto* add = catalog.find("add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->cases.size(), 2u);
  EXPECT_EQ(add->category, "arith");
  EXPECT_EQ(add->tags, (std::vector<std::string>{"bc", "ew"}));
  EXPECT_EQ(add->files(), (std::vector<std::string>{csv}));
}

TEST(Catalog, ReportsEveryBadRowBeforeRunning) {
  TempDir dir;
  const auto csv = dir.write("bad.csv",
                             "op,self,other,strides\n"
                             "add,[4],[4],\n"
                             "nosuchop,[4],,\n"
                             "add,[4],[4],2\n");
  try {
    catalog::load_catalog({csv});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(csv + ":3: LibTorch has no operator aten::nosuchop"), std::string::npos) << message;
    EXPECT_NE(message.find(csv + ":4: "), std::string::npos) << message;
  }
}

TEST(Planner, AxesFiltersAndStableIds) {
  TempDir dir;
  const auto csv = dir.write("a.csv",
                             "op,shape_class,self,other\n"
                             "add,small,[4],[4]\n"
                             "add,large,64x64,64x64\n"
                             "mul,small,[4],[4]\n");
  const auto catalog = catalog::load_catalog({csv});
  plan::PlanOptions options;
  options.ops = {"add"};
  options.dtypes = {"float32", "float64"};
  options.threads = {1, 2};
  options.backward = true;
  const auto cases = plan::make_plan(catalog, options);
  ASSERT_EQ(cases.size(), 2u * 2 * 2 * 2);
  EXPECT_EQ(cases[0].case_id, "add/self=4,other=4/float32/cpu/t1/forward");
  EXPECT_EQ(cases[1].case_id, "add/self=4,other=4/float32/cpu/t1/backward");
  EXPECT_EQ(cases[0].op, "aten::add.Tensor");
  EXPECT_EQ(cases[0].origin, csv + ":2");

  options = plan::PlanOptions{};
  options.shape_classes = {"small"};
  const auto small = plan::make_plan(catalog, options);
  ASSERT_EQ(small.size(), 2u);
  EXPECT_EQ(small[1].name, "mul");

  options = plan::PlanOptions{};
  options.ops = {"aten::add.Tensor"};
  EXPECT_EQ(plan::make_plan(catalog, options).size(), 2u);
  options.ops = {"nope"};
  EXPECT_THROW(plan::make_plan(catalog, options), UsageError);

  // Stages are an axis of forward cases; backward runs eager only.
  options = plan::PlanOptions{};
  options.ops = {"mul"};
  options.backward = true;
  options.stages = {"eager", "script", "fused"};
  const auto staged = plan::make_plan(catalog, options);
  ASSERT_EQ(staged.size(), 4u);
  EXPECT_EQ(staged[0].case_id, "mul/self=4,other=4/float32/cpu/t1/forward");
  EXPECT_EQ(staged[1].case_id, "mul/self=4,other=4/float32/cpu/t1/forward/script");
  EXPECT_EQ(staged[1].stage, "script");
  EXPECT_EQ(staged[2].case_id, "mul/self=4,other=4/float32/cpu/t1/forward/fused");
  EXPECT_EQ(staged[3].case_id, "mul/self=4,other=4/float32/cpu/t1/backward");
  EXPECT_EQ(staged[3].stage, "eager");
}

TEST(Planner, DuplicateRowsAreAConfigError) {
  TempDir dir;
  const auto csv = dir.write("dup.csv", "op,self,other\nadd,[4],[4]\nadd,4,[4]\n");
  // "4" is a JSON number and no shape, so make the duplicate with the same spelling.
  const auto csv2 = dir.write("dup2.csv", "op,self,other\nadd,[4],[4]\nadd,[4],[4]\n");
  const auto catalog = catalog::load_catalog({csv2});
  try {
    plan::make_plan(catalog, plan::PlanOptions{});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(csv2 + ":3: duplicate case"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("same as " + csv2 + ":2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(catalog::load_catalog({csv}), ConfigError);
}

TEST(Planner, AxisValuesListsAndRanges) {
  using Values = std::vector<std::int64_t>;
  EXPECT_EQ(plan::parse_axis("boxes=100,200:800:*2"), std::make_pair(std::string("boxes"), Values{100, 200, 400, 800}));
  EXPECT_EQ(plan::parse_axis("batch=1:3").second, (Values{1, 2, 3}));
  EXPECT_EQ(plan::parse_axis("batch=2:9:3").second, (Values{2, 5, 8}));
  EXPECT_EQ(plan::parse_axis("batch=5:5").second, (Values{5}));
  for (const char* bad : {"boxes", "boxes=", "=4", "boxes=0", "boxes=-3", "boxes=4x", "boxes=8:2", "boxes=1:8:*1",
                          "boxes=1:2:3:4", "boxes=1:100000000"}) {
    EXPECT_THROW(plan::parse_axis(bad), UsageError) << bad;
  }
  try {
    plan::parse_axis("boxes=12,x");
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'x' is not a positive integer"), std::string::npos) << e.what();
  }
}

// A sample's catalogue cases, swept by named axes: every combination once.
TEST(Planner, SweptSampleAxesReplaceTheNamedSizes) {
  catalog::Catalog catalog;
  catalog::Entry sample;
  sample.name = "box_thing";
  sample.kind = "sample";
  sample.category = "longtail";
  sample.axes = {"boxes", "coordinates"};
  for (std::int64_t boxes : {100, 200}) {
    catalog::CatalogCase c;
    c.bound.name = "sample::box_thing";
    c.bound.given = {{"sizes", {boxes, 4}}};
    c.bound.arguments = c.bound.given;
    c.spec.args = c.bound.given;
    sample.cases.push_back(c);
  }
  catalog.entries.push_back(sample);
  plan::PlanOptions options;
  EXPECT_EQ(plan::make_plan(catalog, options).size(), 2u);
  options.axes = {plan::parse_axis("boxes=50:200:*2")};  // 50, 100, 200 from each case: 3 once
  auto cases = plan::make_plan(catalog, options);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].given, Json({{"sizes", {50, 4}}}));
  EXPECT_EQ(cases[2].given, Json({{"sizes", {200, 4}}}));
  EXPECT_NE(cases[0].case_id.find("sizes=[50,4]"), std::string::npos) << cases[0].case_id;
  options.axes.push_back(plan::parse_axis("coordinates=4,5"));
  cases = plan::make_plan(catalog, options);
  ASSERT_EQ(cases.size(), 6u);
  EXPECT_EQ(cases[1].given, Json({{"sizes", {50, 5}}}));
  options.axes = {plan::parse_axis("channels=3")};
  EXPECT_THROW(plan::make_plan(catalog, options), UsageError);
  options.axes = {plan::parse_axis("unused=3")};
  EXPECT_THROW(plan::make_plan(catalog, options), UsageError);
}

}  // namespace
}  // namespace opbench
