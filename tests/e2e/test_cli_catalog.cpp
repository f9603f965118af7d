// End-to-end: the catalogue (list, show, filters, shards, --from) and every shipped operator,
// sample and config.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "cli_fixture.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"
#include "opbench/results/store.hpp"

namespace opbench {
namespace {

TEST_F(Cli, DocsSampleListIsTheGeneratedOne) {
  // docs/samples.md's list of samples is `opbench list --kind sample --md`, pasted between two
  // markers.
  const auto r = opbench("list --kind sample --md");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| [`bbox2delta`](https://github.com/open-mmlab/mmdetection/"),
            std::string::npos)
      << r.out;
  const std::string readme =
      testing::read_text(std::string(OPBENCH_SOURCE_DIR) + "/docs/samples.md");
  const std::string begin = "<!-- opbench list --kind sample --md -->\n",
                    end = "<!-- end of the generated list -->";
  const auto from = readme.find(begin), to = readme.find(end);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(readme.substr(from + begin.size(), to - from - begin.size()), r.out)
      << "docs/samples.md's sample list is out of date: paste `opbench list --kind sample --md` "
         "between its markers";
}

TEST_F(Cli, EverySampleRunsForwardAndEveryDifferentiableOneBackwardAndTrain) {
  // Through the driver, as a user runs them: each sample's backward and training step
  // differentiate the inputs it names (a layer's running statistics would make LibTorch refuse,
  // as conv_bn's once did).
  const auto list = opbench("list --kind sample --json");
  ASSERT_EQ(list.code, 0) << list.err;
  std::string names;
  for (const auto& s : Json::parse(list.out))
    names += (names.empty() ? "" : ",") + s.at("name").get<std::string>();
  const std::string out = m_dir.file("samples.json");
  const auto r =
      opbench("run --samples " + names +
              " --backward --train --repetitions 1 --no-memory --output " + out + k_quick);
  EXPECT_EQ(r.code, 0) << r.err;
  std::set<std::string> differentiated, trained;
  const Json results = read_json(out);
  for (const auto& c : results.at("cases")) {
    const auto field = [&](const char* key) { return c.at(key).get<std::string>(); };
    if (field("status") == "skipped") {
      EXPECT_NE(field("direction"), "forward") << field("case_id");
      EXPECT_NE(field("message").find("backward is not timed"), std::string::npos)
          << field("case_id");
      continue;
    }
    EXPECT_EQ(field("status"), "ok") << field("case_id") << ": " << field("message");
    if (field("direction") == "backward")
      differentiated.insert(field("name"));
    if (field("direction") == "train")
      trained.insert(field("name"));
  }
  EXPECT_GE(differentiated.size(), 62u);
  EXPECT_EQ(trained, differentiated);
}

TEST_F(Cli, UnknownOpAndMissingGpuAreUsageErrors) {
  const auto op = opbench("run --config " + k_data + "/tiny.csv --ops nosuch" + k_quick);
  EXPECT_EQ(op.code, 2);
  EXPECT_NE(op.err.find("unknown operator 'nosuch'"), std::string::npos) << op.err;
  // #46: a filter value that matches nothing names the nearest known ones, in run and list alike
  // (list --tag printed an empty table with exit 0; run said only "no case matches").
  const auto typo = opbench("run --ops addd --dry-run");
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.err.find("unknown operator 'addd' in --ops (nearest: add"), std::string::npos)
      << typo.err;
  for (const std::string& command : {"run --dry-run --tags Forloop", "list --tag Forloop"}) {
    const auto tag = opbench(command);
    EXPECT_EQ(tag.code, 2) << command;
    EXPECT_NE(tag.err.find("unknown tag 'Forloop' in --tags (nearest: for-loop"), std::string::npos)
        << command << ": " << tag.err;
  }
  // Tags are compared whatever their case and word breaks: LongTail-Bench's `ForLoop` and
  // `Broadcast` are the configs' `for-loop` and `broadcast`.
  for (const std::string& spelling : {"ForLoop", "for-loop", "FOR_LOOP"}) {
    const auto r = opbench("run --dry-run --tags " + spelling);
    EXPECT_EQ(r.code, 0) << spelling << ": " << r.err;
  }
  const auto tags = opbench("list-tags");
  EXPECT_EQ(tags.out.find("Broadcast"), std::string::npos) << tags.out;
  EXPECT_EQ(tags.out.find("Reduce "), std::string::npos) << tags.out;
  const auto category = opbench("list --category activatoin");
  EXPECT_EQ(category.code, 2);
  EXPECT_NE(category.err.find("unknown category 'activatoin' in --category (nearest: activation"),
            std::string::npos)
      << category.err;
  const auto flag = opbench("run --no-such-flag");
  EXPECT_EQ(flag.code, 2);
  const auto gpu = opbench("run --config " + k_data + "/tiny.csv --ctx cpu,gpu0" + k_quick);
  if (gpu.code == 0)
    GTEST_SKIP() << "a CUDA device is visible: the no-GPU error path cannot show here";
  EXPECT_EQ(gpu.code, 2);
  EXPECT_NE(gpu.err.find("opbench: device cuda:0 is not available: "), std::string::npos)
      << gpu.err;
  EXPECT_NE(gpu.err.find("CUDA device(s) are visible"), std::string::npos) << gpu.err;
}

TEST_F(Cli, ListListTagsAndShow) {
  const std::string configs = " --config " + k_data + "/tiny.csv --config " + k_data + "/tiny.json";
  const auto list = opbench("list" + configs);
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("softmax"), std::string::npos);
  const auto list_json = opbench("list --json" + configs);
  const Json entries = Json::parse(list_json.out);
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(entries[0]["name"], "add");
  EXPECT_EQ(entries[0]["kind"], "op");
  EXPECT_EQ(entries[0]["cases"], 1);
  const auto filtered = Json::parse(opbench("list --json --category activation" + configs).out);
  EXPECT_EQ(filtered.size(), 2u);
  const Json tags = Json::parse(opbench("list-tags --json" + configs).out);
  ASSERT_EQ(tags.size(), 1u);
  EXPECT_EQ(tags[0]["tag"], "elementwise");
  EXPECT_EQ(tags[0]["count"], 1);
  const auto show = opbench("show softmax" + configs);
  ASSERT_EQ(show.code, 0) << show.err;
  EXPECT_NE(
      show.out.find(
          "schema: aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor"),
      std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find(k_data + "/tiny.json:/operators/1/cases/0; source: unit test"),
            std::string::npos)
      << show.out;
  EXPECT_EQ(opbench("show nosuchthing" + configs).code, 2);
  const auto all = opbench("list --all");
  EXPECT_NE(all.out.find("aten::conv2d\n"), std::string::npos);
}

TEST_F(Cli, ShardsCoverEveryCaseOnceAndMergeJoinsThem) {
  // The Slurm recipe of docs/nightly.md, with the array variables set by hand.
  const std::string configs = " --config " + k_data + "/tiny.csv --config " + k_data + "/tiny.json";
  std::vector<std::string> files;
  for (int i = 0; i < 3; ++i) {
    const std::string out = m_dir.file("shard" + std::to_string(i) + ".json");
    const auto r = opbench("run" + configs + k_quick + " --no-memory --shard " + std::to_string(i) +
                           "/3 --output " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    files.push_back(out);
  }
  const std::string merged = m_dir.file("all.json");
  const auto m =
      opbench("merge " + files[0] + " " + files[1] + " " + files[2] + " --output " + merged);
  ASSERT_EQ(m.code, 0) << m.err;
  std::vector<std::string> ids;
  const Json all = read_json(merged);
  for (const auto& c : all["cases"])
    ids.push_back(c["case_id"]);
  std::sort(ids.begin(), ids.end());
  const auto dry = opbench("run" + configs + " --threads 1 --dry-run");
  std::vector<std::string> planned;
  std::istringstream lines(dry.out);
  for (std::string line; std::getline(lines, line);)
    planned.push_back(line);
  std::sort(planned.begin(), planned.end());
  EXPECT_EQ(ids, planned);
  EXPECT_EQ(all["context"]["merged_from"].size(), 3u);

  EXPECT_EQ(opbench("merge " + files[0] + " " + files[0] + " --output " + merged).code,
            2); // duplicates
  Json other = read_json(files[1]);
  other["context"]["libtorch_version"] = "0.0.1";
  const std::string foreign = m_dir.write("foreign.json", other.dump());
  const auto refused = opbench("merge " + files[0] + " " + foreign + " --output " + merged);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("libtorch_version"), std::string::npos) << refused.err;
  EXPECT_EQ(opbench("run" + configs + " --shard 3/3").code, 2);
}

TEST_F(Cli, FromReRunsTheStoredCasesWithRepetitions) {
  const std::string first = m_dir.file("first.json");
  ASSERT_EQ(opbench("run --config " + k_data + "/tiny.csv --dtype float64" + k_quick +
                    " --output " + first)
                .code,
            0);
  const std::string again = m_dir.file("again.json");
  const auto r =
      opbench("run --from " + first + k_quick +
              " --repetitions 3 --interval-target 0 --interleave --ops mm,add --output " + again);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json a = read_json(first), b = read_json(again);
  ASSERT_EQ(b["cases"].size(), 2u);
  EXPECT_EQ(b["cases"][0]["case_id"], a["cases"][0]["case_id"]);
  EXPECT_EQ(b["cases"][0]["dtype"], "float64");
  EXPECT_EQ(b["cases"][0]["given"], a["cases"][0]["given"]);
  EXPECT_EQ(b["cases"][0]["timing"]["repetition_medians"].size(), 3u);
  EXPECT_GE(b["cases"][0]["samples"].size(), 9u);
  EXPECT_EQ(b["context"]["repetitions"], 3);
}

TEST_F(Cli, EveryShippedOperatorRunsItsSmallCases) {
  // The CI smoke run: every operator of the catalogue at its small cases, one sample each.
  const std::string out = m_dir.file("smoke.json");
  const auto r =
      opbench("--config-dir " + std::string(OPBENCH_CONFIG_DIR) +
              " run --shape-class small --threads 1 --warmup 0 --runs 1 --min-time 0 --max-time 0"
              " --block-time 0.0001 --no-memory --output " +
              out);
  EXPECT_EQ(r.code, 0) << r.err;
  const Json json = read_json(out);
  std::set<std::string> names;
  for (const auto& c : json["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c["case_id"] << ": " << c["message"];
    names.insert(c["name"].get<std::string>());
  }
  EXPECT_GE(names.size(), 250u);
}

TEST_F(Cli, CatalogueFiltersAndTheDefaultSuite) {
  const std::string dir = " --config-dir " + std::string(OPBENCH_CONFIG_DIR);
  const Json all = Json::parse(opbench("list --json" + dir).out);
  EXPECT_GE(all.size(), 250u);
  std::set<std::string> categories;
  for (const auto& e : all)
    categories.insert(e["category"].get<std::string>());
  for (const char* c : {"creation",     "conversion", "shape",
                        "reduction",    "sorting",    "elementwise.binary",
                        "comparison",   "indexing",   "elementwise.unary",
                        "join",         "gemm",       "random",
                        "nn.conv",      "nn.pool",    "activation",
                        "nn.norm",      "nn.dropout", "nn.embedding",
                        "nn.recurrent", "nn.loss",    "nn.attention",
                        "nn.upsample",  "nn.pad",     "nn.sample",
                        "nn.shuffle"}) {
    EXPECT_EQ(categories.count(c), 1u) << c;
  }
  const Json losses = Json::parse(opbench("list --json --category nn.loss" + dir).out);
  EXPECT_GE(losses.size(), 15u);
  for (const auto& e : losses)
    EXPECT_EQ(e["category"], "nn.loss");
  const Json inplace = Json::parse(opbench("list --json --tag inplace" + dir).out);
  EXPECT_GE(inplace.size(), 50u);
  for (const auto& e : inplace) {
    const std::string name = e["name"].get<std::string>();
    EXPECT_EQ(name.substr(0, name.find('.')).back(), '_') << name; // "pow_.Scalar" is in place too
  }
  // Every operator has small, common and large cases (scalar_tensor has no size to grow).
  for (const char* shape_class : {"small", "common", "large"}) {
    std::set<std::string> names;
    std::istringstream lines(
        opbench(dir + " run --dry-run --threads 1 --shape-class " + std::string(shape_class)).out);
    for (std::string line; std::getline(lines, line);)
      names.insert(line.substr(0, line.find('/')));
    std::set<std::string> ops;
    for (const auto& e : all) {
      if (e["kind"] == "op")
        ops.insert(e["name"].get<std::string>());
    }
    for (const auto& op : ops) {
      if (op != "scalar_tensor" || std::string(shape_class) != "large") {
        EXPECT_EQ(names.count(op), 1u) << op << " has no " << shape_class << " case";
      }
    }
  }
  // No filter: the default suite is the common cases, forward, float32.
  const auto suite = opbench(dir + " run --dry-run");
  ASSERT_EQ(suite.code, 0) << suite.err;
  EXPECT_EQ(suite.out.find("/float16/"), std::string::npos);
  EXPECT_EQ(suite.out.find("/backward"), std::string::npos);
  // One intra-op thread unless asked (machine::default_threads); 0 stands for LibTorch's default,
  // and a count given twice is one value of the axis.
  EXPECT_NE(suite.out.find("/cpu/t1/forward\n"), std::string::npos);
  for (const char* other : {"/t0/", "/t2/", "/t4/"})
    EXPECT_EQ(suite.out.find(other), std::string::npos) << other;
  const auto axis =
      opbench(dir + " run --dry-run --ops relu --shape-class small --threads 0,1,1,3");
  ASSERT_EQ(axis.code, 0) << axis.err;
  EXPECT_EQ(axis.out.find("/t0/"), std::string::npos);
  std::set<std::string> per_threads;
  std::istringstream axis_lines(axis.out);
  for (std::string line; std::getline(axis_lines, line);)
    per_threads.insert(line);
  EXPECT_EQ(std::count(axis.out.begin(), axis.out.end(), '\n'),
            static_cast<long>(per_threads.size()));
  EXPECT_NE(axis.out.find("/cpu/t1/forward\n"), std::string::npos);
  EXPECT_NE(axis.out.find("/cpu/t3/forward\n"), std::string::npos);
  const auto negative = opbench(dir + " run --dry-run --ops relu --threads -1");
  EXPECT_EQ(negative.code, 2) << negative.err;
  EXPECT_NE(negative.err.find("--threads: must be a whole number from 0 to 4096, got '-1'"),
            std::string::npos)
      << negative.err;
  const auto with_small = opbench(dir + " run --dry-run --shape-class small,common");
  EXPECT_GT(with_small.out.size(), suite.out.size());
  // The layout axis applies to cases with 4-d or 5-d inputs only.
  const auto layouts =
      opbench(dir + " run --dry-run --ops conv2d,relu --memory-format contiguous,channels_last");
  EXPECT_NE(layouts.out.find("conv2d/input=1x3x8x8,weight=4x3x3x3/float32/cpu/"),
            std::string::npos);
  EXPECT_NE(layouts.out.find("/forward/channels_last\n"), std::string::npos);
  EXPECT_EQ(layouts.out.find("relu/self=64/float32/cpu/t1/forward/channels_last"),
            std::string::npos);
  EXPECT_NE(layouts.out.find("relu/self=64/float32/cpu/t1/forward\n"), std::string::npos);
}

TEST_F(Cli, LongTailSamplesRunThroughTheSameExecutor) {
  const std::string dir = " --config-dir " + std::string(OPBENCH_CONFIG_DIR);
  const Json samples = Json::parse(opbench("list --json --kind sample" + dir).out);
  EXPECT_GE(samples.size(), 25u);
  for (const auto& e : samples)
    EXPECT_EQ(e["kind"], "sample");
  const Json branchy = Json::parse(opbench("list --json --tag IfElseBranch" + dir).out);
  EXPECT_GE(branchy.size(), 3u);
  const auto show = opbench("show bbox2delta" + dir);
  EXPECT_NE(show.out.find("delta_xywh_bbox_coder.py#L117"), std::string::npos) << show.out;
  // Cases by named axes; a sample without a catalogue source says what it is written from.
  const auto iou = opbench("show box_iou" + dir);
  EXPECT_NE(iou.out.find("boxes1=400, coordinates1=4, boxes2=72, coordinates2=4"),
            std::string::npos)
      << iou.out;
  const Json area = Json::parse(opbench("show box_area --json" + dir).out);
  EXPECT_EQ(area["axes"], Json({"images", "boxes_per_image"}));
  EXPECT_NE(area["written_from"].get<std::string>().find("torchvision.ops.box_area"),
            std::string::npos);
  EXPECT_FALSE(area.contains("host_sync"));
  // A name that is both an operator and a sample: the operator, a pointer to the sample, and
  // --kind to pick.
  const auto both = opbench("show scaled_dot_product_attention" + dir);
  EXPECT_NE(
      both.out.find(
          "also a sample of this name: opbench show --kind sample scaled_dot_product_attention"),
      std::string::npos)
      << both.out;
  const auto sdpa = opbench("show --kind sample scaled_dot_product_attention" + dir);
  EXPECT_NE(sdpa.out.find("(sample, category longtail)"), std::string::npos) << sdpa.out;
  EXPECT_NE(sdpa.out.find("PaddleRec"), std::string::npos) << sdpa.out;
  EXPECT_EQ(opbench("show --kind sample conv2d" + dir).code, 2);
  // A sample whose original waits for the device says why.
  const auto margin = opbench("show margin_loss" + dir);
  EXPECT_NE(
      margin.out.find(
          "waits for the device: as the original: labels and predictions are copied to the host"),
      std::string::npos)
      << margin.out;
  // A distillation loss differentiates the student's scores only, as its original.
  const Json gradient = Json::parse(opbench("show gradient_loss --json" + dir).out);
  EXPECT_EQ(gradient["grad_inputs"], Json({0}));
  const auto edge = opbench("run" + dir + " --samples edge_wbceloss --backward" + k_quick +
                            " --output " + m_dir.file("edge.json"));
  ASSERT_EQ(edge.code, 0) << edge.err;
  // A sample computes in the floating dtypes it declares; a case at another is skipped, saying so.
  EXPECT_EQ(Json::parse(opbench("show bbox2delta --json" + dir).out)["dtypes"],
            Json({"float32", "float64", "float16", "bfloat16"}));
  const auto ints =
      opbench("run" + dir + " --samples bbox2delta,dec2bin --dtype int32,float64 --repetitions 1" +
              k_quick + " --output " + m_dir.file("ints.json"));
  ASSERT_EQ(ints.code, 0) << ints.err;
  std::map<std::string, std::string> status;
  const Json ints_run = read_json(m_dir.file("ints.json"));
  for (const auto& c : ints_run["cases"]) {
    status[c["name"].get<std::string>() + " " + c["dtype"].get<std::string>()] =
        c["status"].get<std::string>();
    if (c["status"] == "skipped") {
      EXPECT_NE(c["message"].get<std::string>().find(" computes in float32"), std::string::npos)
          << c.dump();
    }
  }
  EXPECT_EQ(status["bbox2delta float64"], "ok");
  EXPECT_EQ(status["bbox2delta int32"], "skipped");
  EXPECT_EQ(status["dec2bin float64"], "skipped"); // integer codes alone: float32 only
  EXPECT_EQ(status["dec2bin float32"], "");        // not asked for
  const Json edge_run = read_json(m_dir.file("edge.json"));
  ASSERT_FALSE(edge_run["cases"].empty());
  for (const auto& c : edge_run["cases"])
    EXPECT_EQ(c["status"], "ok") << c.dump();
  // A named axis swept from the command line: each catalogue case at each value.
  const auto swept = opbench("run" + dir + " --samples box_iou --axis boxes1=16,32" + k_quick +
                             " --output " + m_dir.file("swept.json"));
  ASSERT_EQ(swept.code, 0) << swept.err;
  const Json swept_cases = read_json(m_dir.file("swept.json"))["cases"];
  ASSERT_EQ(swept_cases.size(), 6u); // 3 catalogue cases x 2 values
  for (const auto& c : swept_cases) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    const auto boxes1 = c["case_id"].get<std::string>().substr(0, 20);
    EXPECT_TRUE(boxes1 == "box_iou/sizes=[16,4," || boxes1 == "box_iou/sizes=[32,4,")
        << c["case_id"];
  }
  const auto no_axis = opbench("run" + dir + " --samples box_iou --axis boxes=16" + k_quick);
  EXPECT_EQ(no_axis.code, 2);
  EXPECT_NE(no_axis.err.find("--axis boxes: no selected operator has that named dimension, nor any "
                             "selected sample that axis"),
            std::string::npos)
      << no_axis.err;
  // A parameter swept by name: the default is the catalogue's case itself, the others are given.
  const auto beta =
      opbench("run" + dir + " --samples smooth_l1_loss --axis beta=1,0.5 --axis rows=64" + k_quick +
              " --output " + m_dir.file("beta.json"));
  ASSERT_EQ(beta.code, 0) << beta.err;
  const Json beta_cases = read_json(m_dir.file("beta.json"))["cases"];
  std::set<std::string> beta_ids;
  for (const auto& c : beta_cases) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    beta_ids.insert(c["case_id"].get<std::string>());
  }
  EXPECT_EQ(beta_ids,
            (std::set<std::string>{"smooth_l1_loss/sizes=[64,4]/float32/cpu/t1/forward",
                                   "smooth_l1_loss/sizes=[64,4],beta=0.5/float32/cpu/t1/forward"}));
  const auto bad_mode =
      opbench("run" + dir + " --samples bbox_overlaps --axis mode=iou,dice" + k_quick);
  EXPECT_EQ(bad_mode.code, 2);
  EXPECT_NE(
      bad_mode.err.find(
          "bad --axis 'mode=iou,dice': 'dice' is not one of iou, iof, giou (bbox_overlaps's mode)"),
      std::string::npos)
      << bad_mode.err;
  const auto shown = opbench("show --kind sample bbox_overlaps");
  EXPECT_NE(shown.out.find("  mode: string, iou by default, one of iou, iof, giou"),
            std::string::npos)
      << shown.out;
  const std::string out = m_dir.file("samples.json");
  const auto r = opbench("run" + dir + " --samples bbox2delta,giou_loss --backward" + k_quick +
                         " --output " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json json = read_json(out);
  ASSERT_EQ(json["cases"].size(), 12u); // 2 samples x 3 catalogue cases x forward/backward
  const Json& first = json["cases"][0];
  EXPECT_EQ(first["case_id"], "bbox2delta/sizes=[128]/float32/cpu/t1/forward");
  EXPECT_EQ(first["kind"], "sample");
  EXPECT_EQ(first["status"], "ok");
  EXPECT_GT(first["work"]["aten_calls"].get<int>(), 10); // a composite: dozens of small ops
  EXPECT_EQ(json["cases"][1]["direction"], "backward");
  EXPECT_EQ(json["cases"][1]["status"], "ok");
  EXPECT_EQ(opbench("run" + dir + " --samples nosuch" + k_quick).code, 2);
  // Samples re-run from a stored result like operators.
  const std::string again = m_dir.file("again.json");
  ASSERT_EQ(opbench("run --from " + out + k_quick + " --output " + again).code, 0);
  EXPECT_EQ(read_json(again)["cases"].size(), 12u);
}

TEST_F(Cli, ShippedConfigsAllBind) {
  const auto r = opbench("--config-dir " + std::string(OPBENCH_CONFIG_DIR) + " run --dry-run");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("all configs bind"), std::string::npos) << r.err;
}

} // namespace
} // namespace opbench
