#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>

#include "opbench/catalog/catalog.hpp"
#include "opbench/core/error.hpp"
#include "opbench/plan/planner.hpp"
#include "temp_dir.hpp"

namespace opbench {
namespace {

using testing::TempDir;

TEST(Catalog, GroupsRowsByNameWithTagsAndCategory) {
  TempDir dir;
  const auto csv = dir.write("a.csv", "op,category,tags,shape_class,self,other\n"
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
  const auto csv = dir.write("bad.csv", "op,self,other,strides\n"
                                        "add,[4],[4],\n"
                                        "nosuchop,[4],,\n"
                                        "add,[4],[4],2\n");
  try {
    catalog::load_catalog({csv});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(csv + ":3: LibTorch has no operator aten::nosuchop"), std::string::npos)
        << message;
    EXPECT_NE(message.find(csv + ":4: "), std::string::npos) << message;
  }
}

TEST(Planner, AxesFiltersAndStableIds) {
  TempDir dir;
  const auto csv = dir.write("a.csv", "op,shape_class,self,other\n"
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

  // Stages are an axis of forward cases; backward and training steps run eager only.
  options = plan::PlanOptions{};
  options.ops = {"mul"};
  options.backward = true;
  options.train = true;
  options.stages = {results::Stage::eager, results::Stage::script, results::Stage::fused};
  const auto staged = plan::make_plan(catalog, options);
  ASSERT_EQ(staged.size(), 5u);
  EXPECT_EQ(staged[4].case_id, "mul/self=4,other=4/float32/cpu/t1/train");
  EXPECT_EQ(staged[4].direction, results::Direction::train);
  EXPECT_EQ(staged[0].case_id, "mul/self=4,other=4/float32/cpu/t1/forward");
  EXPECT_EQ(staged[1].case_id, "mul/self=4,other=4/float32/cpu/t1/forward/script");
  EXPECT_EQ(staged[1].stage, results::Stage::script);
  EXPECT_EQ(staged[2].case_id, "mul/self=4,other=4/float32/cpu/t1/forward/fused");
  EXPECT_EQ(staged[3].case_id, "mul/self=4,other=4/float32/cpu/t1/backward");
  EXPECT_EQ(staged[3].stage, results::Stage::eager);
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
    EXPECT_NE(std::string(e.what()).find(csv2 + ":3: duplicate case"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("same as " + csv2 + ":2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(catalog::load_catalog({csv}), ConfigError);
}

// A catalog of one sample `name` with these axes and catalogue cases' sizes.
catalog::Catalog sample_catalog(const std::string& name, std::vector<std::string> axes,
                                const std::vector<std::vector<std::int64_t>>& cases) {
  catalog::Entry sample;
  sample.name = name;
  sample.kind = results::Kind::sample;
  sample.category = "longtail";
  sample.axes = std::move(axes);
  for (const auto& sizes : cases) {
    catalog::CatalogCase c;
    c.bound.name = "sample::" + name;
    c.bound.given = {{"sizes", sizes}};
    c.bound.arguments = c.bound.given;
    c.spec.args = c.bound.given;
    sample.cases.push_back(c);
  }
  catalog::Catalog catalog;
  catalog.entries.push_back(sample);
  return catalog;
}

TEST(Planner, AxisValuesListsAndRanges) {
  using Values = std::vector<std::int64_t>;
  const auto sizes = [](const char* text) { return plan::axis_sizes(plan::parse_axis(text)); };
  EXPECT_EQ(plan::parse_axis("boxes=100,200:800:*2").name, "boxes");
  EXPECT_EQ(plan::parse_axis("boxes = 100, 200:800:*2").items,
            (std::vector<std::string>{"100", "200:800:*2"}));
  EXPECT_EQ(sizes("boxes=100,200:800:*2"), (Values{100, 200, 400, 800}));
  EXPECT_EQ(sizes("batch=1:3"), (Values{1, 2, 3}));
  EXPECT_EQ(sizes("batch=2:9:3"), (Values{2, 5, 8}));
  EXPECT_EQ(sizes("batch=5:5"), (Values{5}));
  for (const char* bad : {"boxes", "boxes=", "=4", "boxes=4,,5"}) {
    EXPECT_THROW(plan::parse_axis(bad), UsageError) << bad;
  }
  for (const char* bad : {"boxes=0", "boxes=-3", "boxes=4x", "boxes=8:2", "boxes=1:8:*1",
                          "boxes=1:2:3:4", "boxes=1:100000000"}) {
    EXPECT_THROW(sizes(bad), UsageError) << bad;
  }
  try {
    sizes("boxes=12,x");
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'x' is not a positive integer"), std::string::npos)
        << e.what();
  }
}

TEST(SampleParameter, TakesTheValuesOfItsTypeAndRangeOnly) {
  const auto beta = catalog::SampleParameter::float64("beta", 1.0, 1e-6, 100.0);
  EXPECT_EQ(beta.value_of("0.5"), Json(0.5));
  EXPECT_EQ(beta.value_of(" 2 "), Json(2.0));
  EXPECT_TRUE(beta.value_of("3").is_number_float());
  for (const char* bad : {"0", "-1", "101", "1x", "nan", "inf", "", "beta"}) {
    EXPECT_THROW(beta.value_of(bad), std::invalid_argument) << bad;
  }
  EXPECT_EQ(beta.domain(), "a number in [1e-06, 100]");
  const auto bins = catalog::SampleParameter::int64("bins", 10, 1, 1000);
  EXPECT_EQ(bins.value_of("20"), Json(20));
  EXPECT_THROW(bins.value_of("2.5"), std::invalid_argument);
  EXPECT_THROW(bins.value_of("0"), std::invalid_argument);
  EXPECT_FALSE(bins.accepts(Json(2.0)));
  const auto mode = catalog::SampleParameter::string("mode", {"iou", "iof"});
  EXPECT_EQ(mode.default_value, Json("iou"));
  EXPECT_EQ(mode.value_of("iof"), Json("iof"));
  try {
    mode.value_of("giou");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "'giou' is not one of iou, iof");
  }
  // A case gives a parameter only when it is not the default: a catalogue case keeps its id.
  // The parameters follow the sizes in their declared order, however they were set.
  const std::vector<catalog::SampleParameter> both{beta, mode};
  Json given = {{"sizes", {4, 4}}};
  given = catalog::with_parameter(given, both, "mode", Json("iof"));
  given = catalog::with_parameter(given, both, "beta", Json(0.5));
  EXPECT_EQ(given.dump(), R"({"sizes":[4,4],"beta":0.5,"mode":"iof"})");
  given = catalog::with_parameter(given, both, "beta", Json(1.0));
  EXPECT_EQ(given.dump(), R"({"sizes":[4,4],"mode":"iof"})");
  given = catalog::with_parameter(given, both, "mode", Json("iou"));
  EXPECT_EQ(given, Json({{"sizes", {4, 4}}}));
}

// A sample's parameters swept by name, as its sizes: the default is the catalogue case itself.
TEST(Planner, SweptSampleParametersAreGivenByNameWhenNotTheDefault) {
  catalog::Catalog catalog = sample_catalog("loss_thing", {"rows"}, {{100}});
  catalog.entries[0].parameters = {
      catalog::SampleParameter::float64("beta", 1.0, 1e-6, 100.0),
      catalog::SampleParameter::string("reduction", {"mean", "sum", "none"}),
      catalog::SampleParameter::int64("bins", 10, 1, 1000)};
  plan::PlanOptions options;
  const std::string catalogue_id = plan::make_plan(catalog, options).at(0).case_id;
  options.axes = {plan::parse_axis("beta=1,0.5"), plan::parse_axis("reduction=mean,sum")};
  auto cases = plan::make_plan(catalog, options);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].given, Json({{"sizes", {100}}}));
  EXPECT_EQ(cases[0].case_id, catalogue_id);
  EXPECT_EQ(cases[1].given, Json({{"sizes", {100}}, {"reduction", "sum"}}));
  EXPECT_EQ(cases[2].given, Json({{"sizes", {100}}, {"beta", 0.5}}));
  EXPECT_EQ(cases[3].case_id,
            "loss_thing/sizes=[100],beta=0.5,reduction=sum/float32/cpu/t1/forward");
  options.axes = {plan::parse_axis("reduction=sum"),
                  plan::parse_axis("beta=0.5")}; // the same case, whatever the order
  EXPECT_EQ(plan::make_plan(catalog, options).at(0).case_id, cases[3].case_id);
  options.axes = {plan::parse_axis("bins=5:20:5")};
  cases = plan::make_plan(catalog, options);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[1].given, Json({{"sizes", {100}}})); // 10, the default
  EXPECT_EQ(cases[3].given.at("bins"), Json(20));
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"reduction=max", "'max' is not one of mean, sum, none (loss_thing's reduction)"},
           {"beta=0", "'0' is not a number in [1e-06, 100] (loss_thing's beta)"},
           {"beta=x", "'x' is not a number"},
           {"bins=0:4", "'0' is not an integer in [1, 1000] (loss_thing's bins)"},
           {"bins=2.5", "'2.5' is not an integer in [1, 1000]"}}) {
    options.axes = {plan::parse_axis(text)};
    try {
      plan::make_plan(catalog, options);
      ADD_FAILURE() << "expected UsageError for " << text;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("bad --axis '" + text + "'"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
  options.axes = {plan::parse_axis("gamma=2")};
  EXPECT_THROW(plan::make_plan(catalog, options), UsageError); // no selected sample has it
}

// A sample's catalogue cases, swept by named axes: every combination once.
TEST(Planner, SweptSampleAxesReplaceTheNamedSizes) {
  const catalog::Catalog catalog =
      sample_catalog("box_thing", {"boxes", "coordinates"}, {{100, 4}, {200, 4}});
  plan::PlanOptions options;
  EXPECT_EQ(plan::make_plan(catalog, options).size(), 2u);
  options.axes = {plan::parse_axis("boxes=50:200:*2")}; // 50, 100, 200 from each case: 3 once
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

} // namespace
} // namespace opbench
