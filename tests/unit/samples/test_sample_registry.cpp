// The sample registry and declarations (samples/registry.hpp): every sample runs its catalogued
// cases, its gradients, parameters and metadata agree with what it declares and with the
// LongTail-Bench catalogue.
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
      auto g = testing::seeded(3);
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

TEST(SampleRegistry, GradInputsAreFloatingDeviceInputsThatEachGetAGradient) {
  int declared = 0;
  for (const auto& sample : registry()) {
    EXPECT_EQ(sample.info.backward, !sample.info.grad_inputs.empty()) << sample.info.name;
    if (sample.info.grad_inputs.empty())
      continue;
    ++declared;
    auto g = testing::seeded(3);
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
    auto g = testing::seeded(3);
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
  auto g = testing::seeded(3);
  const at::Tensor p = at::randn({64, 4}, g), t = at::randn({64, 4}, g);
  const Sample& smooth = *find("smooth_l1_loss");
  testing::expect_tensors_close(smooth.bind({{"sizes", {64, 4}}, {"beta", 0.25}})({p, t})[0],
                                at::smooth_l1_loss(p, t, at::Reduction::Mean, 0.25), 1e-4);
  const at::Tensor a = random_boxes(5, g), b = random_boxes(7, g);
  const Sample& overlaps = *find("bbox_overlaps");
  testing::expect_tensors_close(overlaps.bind({{"sizes", {5, 7}}, {"mode", "giou"}})({a, b})[0],
                                generalized_box_iou(a, b), 1e-4);
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
