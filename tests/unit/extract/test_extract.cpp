// opbench extract on a TorchScript model the test builds itself, and the whole workflow through
// the binary: extract, run the config next to the model, export the breakdown.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <ATen/ATen.h>
#include <torch/csrc/jit/api/module.h>

#include <cstdio>
#include <map>

#include "infos.hpp"
#include "opbench/catalog/catalog.hpp"
#include "opbench/core/error.hpp"
#include "opbench/extract/extract.hpp"
#include "opbench/plan/planner.hpp"
#include "opbench/results/store.hpp"
#include "temp_dir.hpp"

namespace opbench::extract {
namespace {

// linear -> relu -> relu -> softmax, plus an index lookup: four distinct top-level calls plus
// one repeated, and linear's own addmm/matmul inside it, which must not be recorded.
std::string save_tiny_model(const testing::TempDir& dir) {
  torch::jit::Module m("TinyNet");
  m.register_parameter("weight", at::randn({8, 16}), false);
  m.register_parameter("bias", at::randn({8}), false);
  m.register_buffer("table", at::randn({100, 4}));
  m.define(R"JIT(
def forward(self, x, ids):
    y = torch.linear(x, self.weight, self.bias)
    y = torch.relu(y)
    y = torch.relu(y)
    e = torch.index_select(self.table, 0, ids)
    return torch.softmax(y, -1), e
)JIT");
  const std::string path = dir.file("tiny.pt");
  m.save(path);
  return path;
}

std::vector<InputSpec> tiny_inputs() {
  return {InputSpec::parse("4x16"), InputSpec::parse("6:int64")};
}

TEST(InputSpec, ParsesShapeAndDtype) {
  EXPECT_EQ(InputSpec::parse("1x3x224x224").str(), "1x3x224x224:float32");
  EXPECT_EQ(InputSpec::parse("8:int64").to_json(), Json({{"shape", {8}}, {"dtype", "int64"}}));
  EXPECT_THROW(InputSpec::parse("1x3:float99"), UsageError);
  EXPECT_THROW(InputSpec::parse("axb"), UsageError);
}

TEST(Extract, RecordsTopLevelCallsWithShapesAndCounts) {
  testing::TempDir dir;
  const Extraction e = extract_model(save_tiny_model(dir), tiny_inputs(), 0);
  std::map<std::string, const RecordedCall*> by_op;
  for (const auto& call : e.calls)
    by_op[call.op] = &call;
  ASSERT_EQ(by_op.count("aten::linear"), 1u);
  EXPECT_EQ(by_op.count("aten::addmm"), 0u); // inside linear: not top level
  EXPECT_EQ(by_op.count("aten::matmul"), 0u);
  const RecordedCall& linear = *by_op["aten::linear"];
  EXPECT_EQ(linear.args["input"]["shape"], Json({4, 16}));
  EXPECT_EQ(linear.args["weight"]["shape"], Json({8, 16}));
  EXPECT_EQ(linear.args["bias"]["shape"], Json({8}));
  ASSERT_EQ(by_op.count("aten::softmax.int"), 1u);
  EXPECT_EQ(by_op["aten::softmax.int"]->args["dim"], -1);
  const RecordedCall& select = *by_op["aten::index_select"];
  EXPECT_EQ(select.args["index"]["dtype"], "int64");
  EXPECT_EQ(select.args["index"]["init"], "randint");
  EXPECT_LE(select.args["index"]["high"].get<double>(), 10.0); // the generated ids lie in [0, 10)
  int relus = 0;
  for (const auto& call : e.calls)
    relus += call.op == "aten::relu" ? call.count : 0;
  EXPECT_EQ(relus, 2);
  EXPECT_EQ(e.total_calls, 5);
  for (const auto& call : e.calls)
    EXPECT_TRUE(call.unsupported.empty()) << call.op << ": " << call.unsupported;
}

TEST(Extract, TheConfigIsAnOrdinaryConfig) {
  testing::TempDir dir;
  const std::string config = dir.write(
      "tiny.json", to_config({extract_model(save_tiny_model(dir), tiny_inputs(), 0)}).dump());
  const catalog::Catalog catalog = catalog::load_catalog({config});
  const auto cases = plan::make_plan(catalog, plan::PlanOptions{});
  EXPECT_EQ(cases.size(), catalog.entries.size() + (catalog.find("relu")->cases.size() - 1));
  int counted = 0;
  for (const auto& c : cases) {
    counted += c.count;
    EXPECT_EQ(c.source, "tiny.pt");
  }
  EXPECT_EQ(counted, 5);
}

TEST(Extract, UnreadableModelIsAClearError) {
  testing::TempDir dir;
  try {
    extract_model(dir.write("junk.pt", "not a model"), tiny_inputs(), 0);
    FAIL() << "expected Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot load the TorchScript model"), std::string::npos)
        << e.what();
  }
}

// A long-tail sample's calls, recorded as `run` makes its inputs: every call keyed to its case.
TEST(Extract, ASamplesCallsAreKeyedToItsCase) {
  plan::PlanOptions options;
  options.samples = {"bbox2delta"};
  options.axes = {plan::parse_axis("boxes=8")};
  catalog::Catalog catalog;
  catalog::add_samples(catalog, samples::sample_infos());
  const auto cases = plan::make_plan(catalog, options);
  ASSERT_EQ(cases.size(), 1u);
  const Extraction e = extract_case(cases[0]);
  EXPECT_EQ(e.case_key, "bbox2delta/sizes=[8]");
  EXPECT_TRUE(e.model.empty());
  EXPECT_GE(e.total_calls, 20); // mmdetection's delta coder: 37 ATen calls in eager
  EXPECT_LT(e.calls.size(), static_cast<std::size_t>(e.total_calls)); // some repeat
  testing::TempDir dir;
  const Json config = to_config({e});
  ASSERT_TRUE(config.contains("sample_cases"));
  EXPECT_EQ(config["sample_cases"][0]["case"], "bbox2delta/sizes=[8]");
  EXPECT_EQ(config["sample_cases"][0]["top_level_calls"], e.total_calls);
  const catalog::Catalog calls = catalog::load_catalog({dir.write("calls.json", config.dump())});
  int counted = 0;
  for (const auto& c : plan::make_plan(calls, plan::PlanOptions{})) {
    EXPECT_EQ(c.source, "bbox2delta/sizes=[8]");
    counted += c.count;
  }
  int runnable = 0;
  for (const auto& call : e.calls)
    runnable += call.unsupported.empty() ? call.count : 0;
  EXPECT_EQ(counted, runnable);
  EXPECT_EQ(results::case_key("bbox2delta/sizes=[8]/float32/cuda:0/t2/forward/inductor"),
            "bbox2delta/sizes=[8]");
  EXPECT_EQ(results::case_key("plain"), "plain");
}

int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ExtractWorkflow, ExtractRunAndBreakdownThroughTheBinary) {
  testing::TempDir dir;
  const std::string model = save_tiny_model(dir);
  const std::string bin = std::string("'") + OPBENCH_BINARY + "'";
  const std::string config = dir.file("tiny.json");
  ASSERT_EQ(shell(bin + " extract --model " + model + " --input 4x16 --input 6:int64 --output " +
                  config + " > /dev/null"),
            0);
  const std::string results = dir.file("run.json");
  ASSERT_EQ(shell(bin + " run --config " + config + " --model " + model +
                  " --input 4x16 --input 6:int64 --threads 1 --runs 3 --min-time 0 --max-time 0.02 "
                  "--output " +
                  results + " > /dev/null 2>&1"),
            0);
  const results::ResultSet set = results::load_results(results);
  bool whole = false;
  for (const auto& r : set.cases) {
    EXPECT_EQ(r.status, results::Status::ok) << r.c.case_id << ": " << r.message;
    whole = whole || r.c.kind == results::Kind::model;
  }
  EXPECT_TRUE(whole);
  const std::string report = dir.file("breakdown.md");
  ASSERT_EQ(shell(bin + " export --format breakdown --input " + results + " --output " + report),
            0);
  const std::string text = testing::read_text(report);
  EXPECT_NE(text.find("**Sum of the parts**"), std::string::npos) << text;
  EXPECT_NE(text.find("**Whole model** (`model:tiny.pt`)"), std::string::npos) << text;
  EXPECT_NE(text.find("| 1 | `"), std::string::npos) << text;
}

// A sample: extract its calls, run them beside the sample at the same size, and each call's share
// of the sample's own time comes out under the sample's case.
TEST(ExtractWorkflow, ASamplesBreakdownThroughTheBinary) {
  testing::TempDir dir;
  const std::string bin = std::string("'") + OPBENCH_BINARY + "'";
  const std::string config = dir.file("calls.json");
  ASSERT_EQ(shell(bin + " extract --sample bbox2delta --axis boxes=8 --output " + config +
                  " > /dev/null"),
            0);
  const std::string results = dir.file("run.json");
  ASSERT_EQ(shell(bin + " run --config " + config +
                  " --samples bbox2delta --axis boxes=8 --processes 1 --repetitions 2 --runs 3 "
                  "--min-time 0 --max-time 0.01 --output " +
                  results + " > /dev/null 2>&1"),
            0);
  const std::string report = dir.file("breakdown.md");
  ASSERT_EQ(shell(bin + " export --format breakdown --input " + results + " --output " + report),
            0);
  const std::string text = testing::read_text(report);
  EXPECT_NE(text.find("## bbox2delta/sizes=[8]"), std::string::npos) << text;
  EXPECT_NE(text.find("**Whole sample** (`bbox2delta/sizes=[8]/float32/cpu/t1/forward`): "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("parts / whole: "), std::string::npos) << text;
  // Not both, nor neither, of --model and --sample: a usage error.
  EXPECT_EQ(shell(bin + " extract --output " + config + " > /dev/null 2>&1"), 2);
  EXPECT_EQ(shell(bin + " extract --sample bbox2delta --input 4x4 --output " + config +
                  " > /dev/null 2>&1"),
            2);
}

} // namespace
} // namespace opbench::extract
