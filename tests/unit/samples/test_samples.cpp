// Every sample against an independent answer: a small example worked out by hand, or an
// identity (decode(encode(b)) == b, IoU of a box with itself is 1, focal loss with gamma 0 is
// binary cross-entropy, ...).
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "box_ops.hpp"
#include "detection_blocks_ops.hpp"
#include "infos.hpp"
#include "loss_ops.hpp"
#include "recommendation_ops.hpp"
#include "registry.hpp"
#include "sequence_ops.hpp"
#include "tensor_checks.hpp"

namespace opbench::samples {
namespace {

at::Tensor boxes(std::vector<float> values) {
  return at::tensor(values).view({-1, 4});
}

at::Generator gen() {
  return at::make_generator<at::CPUGeneratorImpl>(3);
}

void expect_close(const at::Tensor& a, const at::Tensor& b, double tolerance = 1e-4) {
  ASSERT_EQ(a.sizes(), b.sizes());
  EXPECT_TRUE(at::allclose(a, b, tolerance, tolerance)) << a << "\nvs\n" << b;
}

TEST(BoxCoders, DecodeOfEncodeIsTheIdentity) {
  auto g = gen();
  const at::Tensor priors = random_boxes(64, g), gts = random_boxes(64, g);
  expect_close(delta2bbox(priors, bbox2delta(priors, gts), 1e9), gts, 1e-3);
  expect_close(tblr2bbox(priors, bbox2tblr(priors, gts)), gts, 1e-3);
  // YOLO offsets live in (0, 1) stride units: targets whose centres are near the priors'.
  const at::Tensor near = priors + at::rand({64, 4}, g) * 4.0;
  const at::Tensor stride = at::full({64}, 32.0);
  expect_close(yolo_decode(priors, yolo_encode(priors, near, stride), stride), near, 1e-3);
  expect_close(box_cxcywh_to_xyxy(box_xyxy_to_cxcywh(gts)), gts);
}

TEST(BoxCoders, HandWorked) {
  // Proposal [0,0,2,2] (centre 1,1, size 2) to gt [1,1,5,3] (centre 3,2, size 4x2).
  expect_close(bbox2delta(boxes({0, 0, 2, 2}), boxes({1, 1, 5, 3})),
               at::tensor({1.0f, 0.5f, std::log(2.0f), 0.0f}).view({1, 4}));
  expect_close(box_area(boxes({0, 0, 2, 3, 1, 1, 2, 2})), at::tensor({6.0f, 1.0f}));
  expect_close(box_xyxy_to_cxcywh(boxes({0, 0, 2, 4})), boxes({1, 2, 2, 4}));
  // Detectron's legacy widths: (0, 0, 9, 9) is 10 wide, centred at 5; (1, 1, 10, 10) moves it by
  // 1: dx = dy = 0.1, sizes equal; (0, 0, 19, 9) doubles the width: dw = log 2, centre 10.
  expect_close(bbox2offset(boxes({0, 0, 9, 9}), boxes({1, 1, 10, 10})), boxes({0.1f, 0.1f, 0, 0}));
  expect_close(bbox2offset(boxes({0, 0, 9, 9}), boxes({0, 0, 19, 9}), {10, 10, 5, 5}),
               boxes({5.0f, 0, 5 * std::log(2.0f), 0}));
  // Decoding clamps the log sizes at log(1000 / 16): a width 62.5 times the box's at most.
  expect_close(offset2bbox(boxes({0, 0, 9, 9}), boxes({0, 0, 100, 0})),
               boxes({5 - 312.5f, 0, 5 + 312.5f - 1, 9}));
}

TEST(BoxCoders, OffsetsDecodeBackToTheirBoxes) {
  auto g = gen();
  const auto* sample = find("bbox2offset");
  ASSERT_NE(sample, nullptr);
  const auto inputs = sample->make_inputs(sizes_case({100, 4}).at("sizes"), g);
  const at::Tensor offsets = bbox2offset(inputs[0], inputs[1]);
  expect_close(offset2bbox(inputs[0], offsets), inputs[1], 1e-3);
  // Two classes' offsets a box decode side by side.
  const at::Tensor two = offset2bbox(inputs[0], at::cat({offsets, offsets * 0}, 1));
  expect_close(two.narrow(1, 0, 4), inputs[1], 1e-3);
  expect_close(two.narrow(1, 4, 4), inputs[0], 1e-3);
}

TEST(BoxGeometry, IouAndGeneralisedIou) {
  const at::Tensor a = boxes({0, 0, 2, 2}), b = boxes({1, 1, 3, 3});
  EXPECT_NEAR(box_iou(a, b).item<float>(), 1.0 / 7.0, 1e-6); // intersection 1, union 7
  // Enclosing box 3x3 = 9: giou = 1/7 - (9 - 7) / 9.
  EXPECT_NEAR(generalized_box_iou(a, b).item<float>(), 1.0 / 7.0 - 2.0 / 9.0, 1e-6);
  auto g = gen();
  const at::Tensor many = random_boxes(16, g);
  expect_close(box_iou(many, many).diagonal(), at::ones({16}));
  expect_close(generalized_box_iou(many, many).diagonal(), at::ones({16}));
  EXPECT_LT(generalized_box_iou(boxes({0, 0, 1, 1}), boxes({5, 5, 6, 6})).item<float>(), 0.0f);
}

TEST(BoxGeometry, MasksToBoxes) {
  at::Tensor masks = at::zeros({1, 5, 6}, at::kBool);
  masks[0][1][2] = true;
  masks[0][3][4] = true;
  expect_close(masks_to_boxes(masks), boxes({2, 1, 4, 3}));
}

TEST(IouLosses, ZeroForPerfectPredictions) {
  auto g = gen();
  const at::Tensor b = random_boxes(32, g);
  EXPECT_NEAR(iou_loss(b, b).item<float>(), 0.0, 1e-5);
  EXPECT_NEAR(giou_loss(b, b).item<float>(), 0.0, 1e-5);
  EXPECT_NEAR(diou_loss(b, b).item<float>(), 0.0, 1e-5);
  EXPECT_NEAR(ciou_loss(b, b).item<float>(), 0.0, 1e-5);
  // Disjoint boxes: IoU 0, GIoU loss above 1.
  EXPECT_GT(giou_loss(boxes({0, 0, 1, 1}), boxes({5, 5, 6, 6})).item<float>(), 1.0f);
}

TEST(Losses, FocalWithGammaZeroIsWeightedCrossEntropy) {
  auto g = gen();
  const at::Tensor logits = at::randn({8, 4}, g);
  const at::Tensor target =
      at::one_hot(at::randint(0, 4, {8}, g, at::TensorOptions().dtype(at::kLong)), 4)
          .to(at::kFloat);
  const at::Tensor bce = at::binary_cross_entropy_with_logits(logits, target);
  EXPECT_NEAR(sigmoid_focal_loss(logits, target, 0.0, 0.5).item<float>(), 0.5 * bce.item<float>(),
              1e-6);
}

TEST(Losses, MatchLibTorchAndHandWorkedValues) {
  auto g = gen();
  const at::Tensor p = at::randn({16, 4}, g) * 2, t = at::randn({16, 4}, g);
  EXPECT_NEAR(samples::smooth_l1_loss(p, t).item<float>(), at::smooth_l1_loss(p, t).item<float>(),
              1e-6);
  EXPECT_NEAR(samples::l1_loss(p, t).item<float>(), at::l1_loss(p, t).item<float>(), 1e-6);
  EXPECT_NEAR(balanced_l1_loss(p, p).item<float>(), 0.0, 1e-7);
  // The two branches of balanced L1 meet at |diff| = beta.
  const at::Tensor zero = at::zeros({1});
  EXPECT_NEAR(balanced_l1_loss(at::full({1}, 1.0 - 1e-4), zero).item<float>(),
              balanced_l1_loss(at::full({1}, 1.0 + 1e-4), zero).item<float>(), 1e-3);
  EXPECT_NEAR(charbonnier_loss(p, p).item<float>(), 1e-6, 1e-9); // sqrt(eps)
  const at::Tensor labels = at::randint(0, 4, {16}, g, at::TensorOptions().dtype(at::kLong));
  EXPECT_NEAR(label_smooth_celoss(p, labels, 0.0).item<float>(),
              at::cross_entropy_loss(p, labels).item<float>(), 1e-5);
  // Smoothing 0.1 over the module's 6 classes: 0.1 / 6 on every class, 0.9 + 0.1 / 6 on the label.
  const at::Tensor log_p = p.log_softmax(1);
  const double v = 0.1 / 6;
  const double expected =
      -(v * log_p.sum() + 0.9 * log_p.gather(1, labels.view({-1, 1})).sum()).item<double>() / 16;
  EXPECT_NEAR(label_smooth_celoss(p, labels).item<float>(), expected, 1e-4);
  const at::Tensor loss = at::tensor({1.0f, 2.0f, 3.0f, 4.0f}),
                   weight = at::tensor({1.0f, 0.0f, 1.0f, 0.0f});
  EXPECT_NEAR(weight_reduce_loss(loss, weight).item<float>(), 1.0, 1e-6); // (1 + 3) / 4
  EXPECT_NEAR(weight_reduce_loss(loss, weight, "mean", 2.0).item<float>(), 2.0,
              1e-6); // (1 + 3) / 2
  EXPECT_NEAR(weight_reduce_loss(loss, weight, "sum").item<float>(), 4.0, 1e-6);
  EXPECT_TRUE(at::equal(weight_reduce_loss(loss, weight, "none"), loss * weight));
  EXPECT_THROW(weight_reduce_loss(loss, weight, "sum", 2.0), std::invalid_argument);
}

TEST(Sequences, MasksPositionsBitsAndSquash) {
  const auto k_long = at::TensorOptions().dtype(at::kLong);
  EXPECT_TRUE(at::equal(sequence_mask(at::tensor({1, 3}, k_long), 3),
                        at::tensor({1, 0, 0, 1, 1, 1}, k_long).view({2, 3}).to(at::kBool)));
  EXPECT_TRUE(at::equal(make_positions(at::tensor({5, 6, 1, 1, 7, 8}, k_long).view({2, 3}), 1),
                        at::tensor({2, 3, 1, 1, 2, 3}, k_long).view({2, 3})));
  expect_close(dec2bin(at::tensor({5, 2}, k_long), 4),
               at::tensor({0.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f, 1.0f, 0.0f}).view({2, 4}));
  const at::Tensor v = at::tensor({3.0f, 4.0f}).view({1, 2}); // |v| = 5: squashed length 25 / 26
  expect_close(squash(v), v / 5.0 * (25.0 / 26.0));
}

TEST(SampleRegistry, EverySampleRunsOnItsCataloguedCasesWithFiniteOutputs) {
  std::set<std::string> names;
  for (const auto& sample : registry()) {
    EXPECT_TRUE(names.insert(sample.info.name).second) << "duplicate " << sample.info.name;
    EXPECT_FALSE(sample.info.source.empty()) << sample.info.name;
    // Without a source to follow, the sample says what it is written from.
    EXPECT_EQ(sample.info.url.empty(), !sample.info.written_from.empty()) << sample.info.name;
    ASSERT_FALSE(sample.info.cases.empty()) << sample.info.name;
    // Every size of every case has a name, and the names are distinct identifiers.
    std::set<std::string> axes(sample.info.axes.begin(), sample.info.axes.end());
    EXPECT_EQ(axes.size(), sample.info.axes.size()) << sample.info.name;
    for (const auto& axis : sample.info.axes) {
      EXPECT_TRUE(!axis.empty() && std::all_of(axis.begin(), axis.end(),
                                               [](char ch) {
                                                 return (ch >= 'a' && ch <= 'z') ||
                                                        (ch >= '0' && ch <= '9') || ch == '_';
                                               }))
          << sample.info.name << ": axis '" << axis << "'";
    }
    for (const auto& c : sample.info.cases) {
      EXPECT_EQ(c.at("sizes").size(), sample.info.axes.size())
          << sample.info.name << " " << c.dump();
    }
    for (const auto& c : sample.info.cases) {
      auto g = gen();
      const auto outputs = sample.body(sample.make_inputs(c.at("sizes"), g));
      ASSERT_FALSE(outputs.empty()) << sample.info.name;
      for (const auto& out : outputs) {
        if (at::isFloatingType(out.scalar_type())) {
          EXPECT_TRUE(at::isfinite(out).all().item<bool>()) << sample.info.name << " " << c.dump();
        }
      }
    }
  }
  EXPECT_EQ(find("giou_loss")->info.tags,
            (std::vector<std::string>{"ViewAttribute", "IfElseBranch", "BuiltInDataStructure"}));
  EXPECT_EQ(find("no_such_sample"), nullptr);
}

TEST(BoxCoders, LegacyDecodeOfEncodeAndRois) {
  const auto rois = bbox2roi({testing::floats({0, 0, 1, 1, 2, 2, 3, 3}).view({2, 4}),
                              testing::floats({5, 5, 6, 6}).view({1, 4})});
  testing::expect_float_close(
      rois, testing::floats({0, 0, 0, 1, 1, 0, 2, 2, 3, 3, 1, 5, 5, 6, 6}).view({3, 5}));
  auto g = testing::seeded(11);
  const auto p = random_boxes(32, g), t = random_boxes(32, g);
  testing::expect_float_close(legacy_delta2bbox(p, legacy_bbox2delta(p, t)), t, 1e-3);
}

// A sample that differentiates only some inputs names floating device inputs its loss depends on.
TEST(SampleRegistry, GradInputsAreFloatingDeviceInputsThatEachGetAGradient) {
  int declared = 0;
  for (const auto& sample : registry()) {
    EXPECT_EQ(sample.info.backward, !sample.info.grad_inputs.empty()) << sample.info.name;
    if (sample.info.grad_inputs.empty())
      continue;
    ++declared;
    auto g = gen();
    Tensors inputs = sample.make_inputs(sample.info.cases.at(0).at("sizes"), g);
    const std::size_t on_device = inputs.size() - std::min(inputs.size(), sample.info.host_inputs);
    at::AutoGradMode grad(true);
    for (std::size_t i : sample.info.grad_inputs) {
      ASSERT_LT(i, on_device) << sample.info.name;
      ASSERT_TRUE(at::isFloatingType(inputs[i].scalar_type()))
          << sample.info.name << " input " << i;
      inputs[i].requires_grad_(true);
    }
    const auto outputs = sample.body(inputs);
    EXPECT_TRUE(outputs.at(0).requires_grad()) << sample.info.name;
    // Backward of every differentiable output reaches each named input: none is named that the
    // outputs do not depend on (an input read for its shape only, a mask).
    at::Tensor total = at::zeros({}, at::kDouble);
    for (const auto& out : outputs) {
      if (out.defined() && out.requires_grad())
        total = total + out.to(at::kDouble).sum();
    }
    total.backward();
    for (std::size_t i : sample.info.grad_inputs) {
      EXPECT_TRUE(inputs[i].grad().defined())
          << sample.info.name << " input " << i << " gets no gradient";
    }
  }
  EXPECT_GE(declared, 62);
}

TEST(SampleRegistry, AnIncompleteDeclarationIsRefusedNamingTheSampleAndItsFile) {
  std::vector<Sample> out;
  Family family(out, "example_samples.cpp");
  family.add("example", {"Reduce"}, "UNKNOWN", "").axes({"rows", "columns"}).cases({{4, 4}, {8}});
  const auto message = [&]() -> std::string {
    try {
      check_declared(out.back());
    } catch (const std::logic_error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(out.back().info.file, "example_samples.cpp");
  EXPECT_NE(message().find("example (samples/example_samples.cpp): no input maker"),
            std::string::npos)
      << message();
  Declaration(out, 0).inputs([](const Json&, at::Generator&) { return Tensors{}; });
  EXPECT_NE(message().find("no body"), std::string::npos) << message();
  Declaration(out, 0).body([](const Tensors& t) { return t; });
  EXPECT_NE(message().find("case [8] has 1 sizes, expected one per axis (2)"), std::string::npos)
      << message();
  Declaration(out, 0).cases({{4, 4}, {8, 8}}).grad_inputs({0});
  EXPECT_NE(message().find("grad_inputs without backward"), std::string::npos) << message();
  out.back().info.grad_inputs.clear();
  Declaration(out, 0).backward();
  EXPECT_NE(message().find("backward without grad_inputs: name the inputs training differentiates"),
            std::string::npos)
      << message();
  Declaration(out, 0).grad_inputs({0}).dtypes({"float32", "int32"});
  EXPECT_NE(message().find("dtype 'int32' is no floating dtype"), std::string::npos) << message();
  Declaration(out, 0).dtypes({});
  EXPECT_NE(message().find("no dtypes"), std::string::npos) << message();
  Declaration(out, 0).dtypes({"float32", "bfloat16"}).host_sync("why").written_from("what");
  EXPECT_EQ(message(), "accepted");
  EXPECT_TRUE(out.back().info.backward);
  EXPECT_EQ(out.back().info.cases.at(1), sizes_case({8, 8}));
  EXPECT_EQ(out.back().info.host_sync, "why");
  EXPECT_EQ(out.back().info.written_from, "what");
  Declaration(out, 0).float64_param("rows", 1.0, 0.0, 2.0);
  EXPECT_NE(message().find("parameter 'rows' has the name of an axis"), std::string::npos)
      << message();
  out.back().info.parameters.clear();
  Declaration(out, 0).float64_param("beta", 3.0, 0.0, 2.0);
  EXPECT_NE(message().find("parameter 'beta': its default 3.0 is not a number in [0, 2]"),
            std::string::npos)
      << message();
  out.back().info.parameters.clear();
  Declaration(out, 0).string_param("mode", {"iou"}).int64_param("mode", 1, 0, 2);
  EXPECT_NE(message().find("two parameters named 'mode'"), std::string::npos) << message();
  out.back().info.parameters.clear();
  Declaration(out, 0).string_param("mode", {}).body([](const Params&) {
    return Sample::Body([](const Tensors& t) { return t; });
  });
  EXPECT_NE(message().find("parameter 'mode': its default null is not one of "), std::string::npos)
      << message();
  out.back().info.parameters.clear();
  Declaration(out, 0).string_param("mode", {"iou", "iof"});
  EXPECT_EQ(message(), "accepted");
}

// A value of `p` other than its default, inside its range: each other choice of a string.
std::vector<Json> other_values(const catalog::SampleParameter& p) {
  if (p.type == "string") {
    std::vector<Json> out;
    for (const auto& choice : p.choices) {
      if (Json(choice) != p.default_value)
        out.emplace_back(choice);
    }
    return out;
  }
  const double d = p.default_value.get<double>();
  if (p.type == "int64")
    return {Json(static_cast<std::int64_t>(d - 1 >= p.min ? d - 1 : d + 1))};
  return {Json(d != 0 && d * 2 <= p.max ? d * 2 : (d + p.max) / 2)};
}

// Every parameter a sample declares reaches its computation: each other value changes the
// outputs of its first catalogue case (a parameter the body ignored would change nothing).
TEST(SampleRegistry, EveryParameterChangesWhatItsSampleComputes) {
  int parameters = 0;
  std::set<std::string> types;
  for (const auto& sample : registry()) {
    const Json& first = sample.info.cases.at(0);
    auto g = gen();
    const Tensors inputs = sample.make_inputs(first.at("sizes"), g);
    // Each run from the same global seed (random_sampler draws from it, as the original does).
    const auto run = [&](const Sample::Body& body) {
      at::manual_seed(7);
      return body(inputs);
    };
    const Tensors reference = run([&](const Tensors& t) { return sample.body(t); });
    // The catalogue's case binds every parameter at its default.
    const Tensors bound = run(sample.bind(first));
    ASSERT_EQ(bound.size(), reference.size()) << sample.info.name;
    for (std::size_t i = 0; i < bound.size(); ++i)
      EXPECT_TRUE(at::equal(bound[i], reference[i])) << sample.info.name << " output " << i;
    for (const auto& p : sample.info.parameters) {
      ++parameters;
      types.insert(p.type);
      for (const Json& value : other_values(p)) {
        ASSERT_TRUE(p.accepts(value)) << sample.info.name << " " << p.name << "=" << value.dump();
        const Json given = catalog::with_parameter(first, sample.info.parameters, p.name, value);
        const Tensors changed = run(sample.bind(given));
        bool differs = changed.size() != reference.size();
        for (std::size_t i = 0; !differs && i < changed.size(); ++i) {
          differs =
              changed[i].sizes() != reference[i].sizes() ||
              !at::allclose(changed[i].to(at::kDouble), reference[i].to(at::kDouble), 1e-6, 1e-9);
        }
        EXPECT_TRUE(differs) << sample.info.name << ": " << p.name << "=" << value.dump()
                             << " computes the same as the default " << p.default_value.dump();
      }
    }
  }
  EXPECT_GE(parameters, 20);
  EXPECT_EQ(types, (std::set<std::string>{"float64", "int64", "string"}));
}

// Through the registry's binding, a parameter gives what the library computes with it.
TEST(SampleRegistry, ParametersReachTheBodyAsTheLibraryTakesThem) {
  auto g = gen();
  const at::Tensor p = at::randn({64, 4}, g), t = at::randn({64, 4}, g);
  const Sample& smooth = *find("smooth_l1_loss");
  expect_close(smooth.bind({{"sizes", {64, 4}}, {"beta", 0.25}})({p, t})[0],
               at::smooth_l1_loss(p, t, at::Reduction::Mean, 0.25));
  const at::Tensor a = random_boxes(5, g), b = random_boxes(7, g);
  const Sample& overlaps = *find("bbox_overlaps");
  expect_close(overlaps.bind({{"sizes", {5, 7}}, {"mode", "giou"}})({a, b})[0],
               generalized_box_iou(a, b));
  // Reading a parameter the sample does not declare, or as another type, is the sample's bug.
  const Params params(smooth.info, Json::object());
  EXPECT_EQ(params.float64("beta"), 1.0);
  EXPECT_THROW(params.float64("gamma"), std::logic_error);
  EXPECT_THROW(params.string("beta"), std::logic_error);
  EXPECT_THROW(Params(find("ghmr_loss")->info, {{"bins", 2.5}}).int64("bins"), std::logic_error);
}

TEST(SampleCatalogue, EveryTagHasThreeSamplesAndEverySourceOne) {
  std::map<std::string, int> per_tag;
  std::set<std::string> sources;
  for (const auto& s : registry()) {
    for (const auto& tag : s.info.tags)
      ++per_tag[tag];
    sources.insert(s.info.source);
  }
  EXPECT_GE(registry().size(), 64u);
  for (const char* tag :
       {"InputAware", "ViewAttribute", "IfElseBranch", "ForLoop", "AdvancedIndexing",
        "BuiltInDataStructure", "Reduce", "Customized", "Broadcast", "ThirdPartyCodes", "Fused"}) {
    EXPECT_GE(per_tag[tag], 3) << tag;
  }
  for (const char* source :
       {"MMDET", "MMSEG", "MMPOSE", "MMACTION2", "MMCLS", "MMEDIT", "FAIRSEQ", "SINGLE_REPO",
        "UNKNOWN", "PADDLEREC", "POD", "SEGMENTBASE2", "OPENNMT", "ASSEMBLYAI"}) {
    EXPECT_EQ(sources.count(source), 1u) << source;
  }
}

} // namespace
} // namespace opbench::samples

// The metadata of every sample against the LongTail-Bench catalogue (samples/longtail-samples.psv,
// a copy of the published list: name|tags|source|cases|iterations|url): a sample from the
// catalogue carries exactly its tags, source and url; tags come from the catalogue's ten (plus
// "Fused" for opbench's own fusion samples, source MXNET_DESIGN, which the catalogue lacks).
namespace opbench::samples {
namespace {

struct CatalogueRow {
  std::set<std::string> tags;
  std::string source;
  std::string url;
};

std::map<std::string, CatalogueRow> read_catalogue() {
  std::ifstream in(std::string(OPBENCH_SOURCE_DIR) + "/samples/longtail-samples.psv");
  std::map<std::string, CatalogueRow> rows;
  std::string line;
  std::getline(in, line); // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '|');)
      f.push_back(cell);
    if (f.size() < 3)
      continue;
    CatalogueRow row;
    std::stringstream tags(f[1]);
    for (std::string tag; tags >> tag;)
      row.tags.insert(tag);
    row.source = f[2];
    row.url = f.size() > 5 ? f[5] : "";
    rows[f[0]] = row;
  }
  return rows;
}

TEST(SampleCatalogue, TagsSourcesAndUrlsAreTheCataloguesFromItsVocabulary) {
  const auto catalogue = read_catalogue();
  ASSERT_EQ(catalogue.size(), 101u) << "samples/longtail-samples.psv";
  std::set<std::string> vocabulary{"Fused"};
  for (const auto& [name, row] : catalogue)
    vocabulary.insert(row.tags.begin(), row.tags.end());
  EXPECT_EQ(vocabulary.size(), 11u);
  std::size_t from_catalogue = 0;
  for (const auto& info : samples::sample_infos()) {
    for (const auto& tag : info.tags)
      EXPECT_EQ(vocabulary.count(tag), 1u) << info.name << ": tag " << tag;
    const auto it = catalogue.find(info.name);
    if (info.source == "MXNET_DESIGN") {
      EXPECT_EQ(it, catalogue.end()) << info.name;
      continue;
    }
    ASSERT_NE(it, catalogue.end()) << info.name << " is not in the LongTail-Bench catalogue";
    ++from_catalogue;
    EXPECT_EQ(std::set<std::string>(info.tags.begin(), info.tags.end()), it->second.tags)
        << info.name;
    EXPECT_EQ(info.source, it->second.source) << info.name;
    EXPECT_EQ(info.url, it->second.url) << info.name;
  }
  EXPECT_GE(from_catalogue, 63u);
}

} // namespace
} // namespace opbench::samples
