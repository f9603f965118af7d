// The samples of more_samples.cpp against independent answers: hand-worked values, identities
// and the same quantity computed another way.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <map>
#include <set>

#include "more_ops.hpp"
#include "registry.hpp"
#include "sample_ops.hpp"

namespace opbench::samples {
namespace {

const auto k_long = at::TensorOptions().dtype(at::kLong);
at::Generator gen() { return at::make_generator<at::CPUGeneratorImpl>(11); }
at::Tensor f(std::vector<float> v) { return at::tensor(v); }
at::Tensor l(std::vector<int64_t> v) { return at::tensor(v, k_long); }

void close(const at::Tensor& a, const at::Tensor& b, double tol = 1e-4) {
  ASSERT_EQ(a.sizes(), b.sizes()) << a << "\nvs\n" << b;
  EXPECT_TRUE(at::allclose(a.to(at::kFloat), b.to(at::kFloat), tol, tol)) << a << "\nvs\n" << b;
}

TEST(MoreSamples, EncodingLayers) {
  auto g = gen();
  const auto a = at::rand({2, 6, 3}, g), x = at::randn({2, 6, 4}, g), c = at::randn({3, 4}, g), s = at::rand({3}, g);
  close(aggregate(a, x, c), at::bmm(a.transpose(1, 2), x) - a.sum(1).unsqueeze(2) * c.unsqueeze(0));
  close(scaled_l2(x, c, s), at::cdist(x, c.unsqueeze(0).expand({2, 3, 4})).pow(2) * s.view({1, 1, 3}), 1e-3);
}

TEST(MoreSamples, AssignerAndSampler) {
  const auto overlaps = f({0.9f, 0.1f, 0.45f, 0.2f, 0.3f, 0.1f}).view({2, 3});
  // box 0: IoU 0.9 with gt 0 -> 1; box 1: under 0.4, but gt 1's best box -> 2; box 2: in between -> -1.
  EXPECT_TRUE(at::equal(assign_wrt_overlaps(overlaps), l({1, 2, -1})));
  auto g = gen();
  const auto assigned = at::randint(0, 3, {1000}, g, k_long);
  const auto picked = random_sampler(assigned, 100, 0.25);
  EXPECT_EQ(picked[0].size(0), 25);
  EXPECT_TRUE(assigned.index({picked[0]}).gt(0).all().item<bool>());
  EXPECT_EQ(picked[0].size(0) + picked[1].size(0), 100);
  EXPECT_TRUE(assigned.index({picked[1]}).eq(0).all().item<bool>());
}

TEST(MoreSamples, RoisTokensLocationsFlags) {
  const auto rois = bbox2roi({f({0, 0, 1, 1, 2, 2, 3, 3}).view({2, 4}), f({5, 5, 6, 6}).view({1, 4})});
  close(rois, f({0, 0, 0, 1, 1, 0, 2, 2, 3, 3, 1, 5, 5, 6, 6}).view({3, 5}));
  EXPECT_TRUE(at::equal(collate_tokens({l({5, 6}), l({7})}, 1), l({5, 6, 7, 1}).view({2, 2})));
  close(compute_locations(2, 3, 8).narrow(0, 0, 4), f({4, 4, 12, 4, 20, 4, 4, 12}).view({4, 2}));
  EXPECT_TRUE(at::equal(valid_flags(2, 3, 1, 2, 2).to(at::kLong), l({1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0})));
  const auto s = sanitize_coordinates(f({0.5f}), f({0.2f}), 100, 1);
  close(s[0], f({19}));
  close(s[1], f({51}));
}

TEST(MoreSamples, BoxCodersAndOverlaps) {
  auto g = gen();
  const auto p = random_boxes(32, g), t = random_boxes(32, g);
  close(legacy_delta2bbox(p, legacy_bbox2delta(p, t)), t, 1e-3);
  close(intersect(f({0, 0, 2, 2}).view({1, 4}), f({1, 1, 3, 3}).view({1, 4})), f({1}).view({1, 1}));
  close(jaccard(p, t), box_iou(p, t));
  EXPECT_NEAR(bounded_iou_loss(p, p).item<float>(), 0.0, 1e-4);
  close(gen_base_anchors(4, f({1, 4}), f({1})), f({-2, -2, 2, 2, -1, -4, 1, 4}).view({2, 4}));
}

TEST(MoreSamples, DetrHeads) {
  // Queries predict classes 0, no-object (2), 1: cardinality 2.
  auto logits = at::full({1, 3, 3}, -5.0);
  logits[0][0][0] = 5.0;
  logits[0][1][2] = 5.0;
  logits[0][2][1] = 5.0;
  EXPECT_NEAR(detr_loss_cardinality(logits, l({2})).item<float>(), 0.0, 1e-6);
  EXPECT_NEAR(detr_loss_cardinality(logits, l({0})).item<float>(), 2.0, 1e-6);
  const auto out = detr_postprocess(logits, f({0.5f, 0.5f, 0.2f, 0.4f}).view({1, 1, 4}).expand({1, 3, 4}),
                                    f({100, 200}).view({1, 2}));
  close(out[2][0][0], f({80, 30, 120, 70}));
  close(out[0], std::get<0>(logits.softmax(-1).narrow(-1, 0, 2).max(-1)));
  auto g = gen();
  const auto x = at::randn({2, 8, 3, 4}, g), row = at::rand({50, 5}, g), col = at::rand({50, 5}, g);
  const auto pos = position_embedding_learned(x, row, col);
  EXPECT_EQ(pos.sizes(), (std::vector<int64_t>{2, 10, 3, 4}));
  close(pos[1].narrow(0, 0, 5).select(1, 2).select(1, 3), col[3]);  // x part at column 3
  close(pos[0].narrow(0, 5, 5).select(1, 2).select(1, 0), row[2]);  // y part at row 2
  const auto sine = position_embedding_sine(at::zeros({1, 1, 1}, at::kBool), 4);
  EXPECT_NEAR(sine[0][0][0][0].item<float>(), 0.0, 1e-4);  // sin(2 pi)
  EXPECT_NEAR(sine[0][1][0][0].item<float>(), 1.0, 1e-4);  // cos(2 pi / 1)
}

TEST(MoreSamples, Losses) {
  EXPECT_NEAR(bmn_loss(f({0.9f, 0.1f}), f({1, 0})).item<float>(), -std::log(0.9 + 1e-5), 1e-4);
  auto g = gen();
  const auto logits = at::randn({16, 5}, g);
  const auto labels = at::randint(0, 5, {16}, g, k_long);
  EXPECT_NEAR(softmax_focal_loss(logits, labels, 0.0).item<float>(), at::cross_entropy_loss(logits, labels).item<float>(), 1e-5);
  // pred 0.5 at a peak: -log(0.5) * 0.5^2.
  EXPECT_NEAR(gaussian_focal_loss(f({0.5f}), f({1})).item<float>(), std::log(2.0) * 0.25, 1e-5);
  const auto a = at::randn({4, 3, 5, 5}, g), b = at::randn({4, 3, 5, 5}, g);
  EXPECT_NEAR(joints_mse_loss(a, b, at::ones({4, 3, 1})).item<float>(), 0.5 * at::mse_loss(a, b).item<float>(), 1e-5);
  EXPECT_NEAR(l2_loss(a, b).item<float>(), at::mse_loss(a, b).item<float>(), 1e-6);
  const auto target = at::rand({8, 4}, g) + 0.1;
  const auto vf_logits = at::randn({8, 4}, g);
  EXPECT_NEAR(varifocal_loss(vf_logits, target).item<float>(),
              (at::binary_cross_entropy_with_logits(vf_logits, target, {}, {}, at::Reduction::None) * target).mean().item<float>(), 1e-6);
  // All-zero embeddings: -log sigma(0) for the true word and for each of K negatives.
  EXPECT_NEAR(word2vec_loss(at::zeros({2, 4}), at::zeros({2, 4}), at::zeros({2, 3, 4})).item<float>(), 4 * std::log(2.0), 1e-5);
  EXPECT_TRUE(at::equal(mmdetection_accuracy(f({0.1f, 0.9f, 0.8f, 0.2f}).view({2, 2}), l({1, 1}), {1, 2}), f({50, 100})));
}

TEST(MoreSamples, RecommendationAndSequenceLayers) {
  auto g = gen();
  const auto v = at::randn({3, 5, 4}, g);
  at::Tensor pairwise = at::zeros({3, 1});
  for (int i = 0; i < 5; ++i) {
    for (int j = i + 1; j < 5; ++j) pairwise += (v.select(1, i) * v.select(1, j)).sum(1, true);
  }
  close(factorization_machine(v), pairwise, 1e-4);
  close(smooth_step(f({-1, 0, 1, 0.25f})), f({0, 0.5f, 1, -2.0f * 0.015625f + 0.375f + 0.5f}));
  const auto x = at::randn({2, 3, 8}, g);
  const auto heads = split_heads_qkv(x, 2);
  EXPECT_EQ(heads.sizes(), (std::vector<int64_t>{2, 2, 3, 4}));
  close(heads[1][1][2], x[1][2].narrow(0, 4, 4));
  // Frames' best labels 0 0 blank 0 1 1 blank (blank = 2): collapse repeats, drop blanks -> 0 0 1.
  const auto best = l({0, 0, 2, 0, 1, 1, 2});
  const auto logp = at::one_hot(best, 3).to(at::kFloat).unsqueeze(0);
  EXPECT_TRUE(at::equal(greedy_decoder(logp, 2)[0], l({0, 0, 1})));
  const auto src = at::randn({4, 6}, g);
  const auto idx = at::randint(0, 6, {4, 3}, g, k_long);
  close(index2d(src, idx), at::gather(src, 1, idx));
}

TEST(MoreSamples, PartialConvAndFusedBlocks) {
  auto g = gen();
  const auto x = at::randn({1, 3, 8, 8}, g), w = at::randn({4, 3, 3, 3}, g), b = at::randn({4}, g);
  // A full mask: every window is complete, the ratio is 1, partial conv is plain conv.
  close(partialconv2d(x, at::ones({1, 1, 8, 8}), w, b), at::conv2d(x, w, b), 1e-4);
  // conv via im2col + matmul: the independent answer for the fused blocks.
  const auto cols = at::im2col(x, {3, 3}, {1, 1}, {1, 1}, {1, 1});  // (1, 27, 64)
  const auto conv = (at::matmul(w.view({4, 27}), cols) + b.view({1, 4, 1})).view({1, 4, 8, 8});
  close(conv_relu(x, w, b), at::clamp_min(conv, 0), 1e-4);
  const auto gamma = at::rand({4}, g) + 0.5, beta = at::randn({4}, g), mean = at::randn({4}, g), var = at::rand({4}, g) + 0.5;
  const auto inv = gamma / at::sqrt(var + 1e-5);
  const auto folded = at::conv2d(x, w * inv.view({4, 1, 1, 1}), beta - mean * inv, 1, 1);
  close(conv_bn(x, w, gamma, beta, mean, var), folded, 1e-4);
  const auto xs = at::randn({5, 6}, g), lw = at::randn({7, 6}, g), lb = at::randn({7}, g);
  const auto y = at::matmul(xs, lw.t()) + lb;
  close(linear_gelu(xs, lw, lb), 0.5 * y * (1 + at::erf(y / std::sqrt(2.0))), 1e-5);
}

TEST(MoreSamples, CatalogueCoverage) {
  std::map<std::string, int> per_tag;
  std::set<std::string> sources;
  for (const auto& s : registry()) {
    for (const auto& tag : s.info.tags) ++per_tag[tag];
    sources.insert(s.info.source);
  }
  EXPECT_GE(registry().size(), 64u);
  for (const char* tag : {"InputAware", "ViewAttribute", "IfElseBranch", "ForLoop", "AdvancedIndexing",
                          "BuiltInDataStructure", "Reduce", "Customized", "Broadcast", "ThirdPartyCodes", "Fused"}) {
    EXPECT_GE(per_tag[tag], 3) << tag;
  }
  for (const char* source : {"MMDET", "MMSEG", "MMPOSE", "MMACTION2", "MMCLS", "MMEDIT", "FAIRSEQ", "SINGLE_REPO",
                             "UNKNOWN", "PADDLEREC", "POD", "SEGMENTBASE2", "OPENNMT", "ASSEMBLYAI"}) {
    EXPECT_EQ(sources.count(source), 1u) << source;
  }
}

}  // namespace
}  // namespace opbench::samples
