// PaddleRec's attention samples (recommendation_samples.cpp) against independent answers.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

#include "recommendation_ops.hpp"
#include "tensor_checks.hpp"

namespace opbench::samples {
namespace {

TEST(RecommendationSamples, LabelAwareAttentionIsASoftmaxWeightedSumOfTheKeys) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(7);
  const auto keys = at::randn({3, 4, 5}, g, at::kDouble), query = at::randn({3, 5}, g, at::kDouble);
  const auto out = label_aware_attention(keys, query);
  for (int b = 0; b < 3; ++b) {
    const auto logits = at::mv(keys[b], query[b]); // (K)
    const auto w = at::exp(logits - logits.max()) / at::exp(logits - logits.max()).sum();
    testing::expect_tensors_close(out[0][b], at::mv(keys[b].t(), w), 1e-12);
    testing::expect_tensors_close(out[1][b].squeeze(-1), w, 1e-12);
  }
}

TEST(RecommendationSamples, BstAttentionMatchesLibTorchsFusedAttention) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(9);
  const auto q = at::randn({2, 6, 8}, g), k = at::randn({2, 6, 8}, g), v = at::randn({2, 6, 8}, g);
  const auto bias = (at::rand({2, 1, 6}, g) > 0.7).to(at::kFloat).expand({2, 6, 6}) * -1e9;
  testing::expect_tensors_close(bst_scaled_dot_product_attention(q, k, v, bias),
                                at::scaled_dot_product_attention(q, k, v, bias), 1e-5);
  testing::expect_tensors_close(bst_scaled_dot_product_attention(q, k, v, at::Tensor()),
                                at::scaled_dot_product_attention(q, k, v), 1e-5);
}

TEST(RecommendationSamples, ChannelAttentionPerUser) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(13);
  const std::vector<at::Tensor> channels{at::randn({4, 3}, g, at::kDouble),
                                         at::randn({4, 3}, g, at::kDouble),
                                         at::randn({4, 3}, g, at::kDouble)};
  const auto att = at::randn({1, 3}, g, at::kDouble), att_mat = at::randn({3, 3}, g, at::kDouble);
  const auto out = channel_attention(channels, att, att_mat);
  for (int u = 0; u < 4; ++u) {
    std::vector<double> s;
    for (const auto& c : channels)
      s.push_back((att[0] * at::mv(att_mat.t(), c[u])).sum().item<double>());
    double z = 0;
    for (double x : s)
      z += std::exp(x);
    at::Tensor mixed = at::zeros({3}, at::kDouble);
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_NEAR(out[1][u][static_cast<int64_t>(i)].item<double>(), std::exp(s[i]) / z, 1e-12);
      mixed += channels[i][u] * (std::exp(s[i]) / z);
    }
    testing::expect_tensors_close(out[0][u], mixed, 1e-12);
  }
}

TEST(RecommendationLayers, FactorizationSmoothStepHeadsWord2vec) {
  auto g = testing::seeded(11);
  const auto v = at::randn({3, 5, 4}, g);
  at::Tensor pairwise = at::zeros({3, 1});
  for (int i = 0; i < 5; ++i) {
    for (int j = i + 1; j < 5; ++j)
      pairwise += (v.select(1, i) * v.select(1, j)).sum(1, true);
  }
  testing::expect_float_close(factorization_machine(v), pairwise, 1e-4);
  testing::expect_float_close(smooth_step(testing::floats({-1, 0, 1, 0.25f})),
                              testing::floats({0, 0.5f, 1, -2.0f * 0.015625f + 0.375f + 0.5f}));
  const auto x = at::randn({2, 3, 8}, g);
  const auto heads = split_heads_qkv(x, 2);
  EXPECT_EQ(heads.sizes(), (std::vector<int64_t>{2, 2, 3, 4}));
  testing::expect_float_close(heads[1][1][2], x[1][2].narrow(0, 4, 4));
  // All-zero embeddings: -log sigma(0) for the true word and for each of K negatives.
  EXPECT_NEAR(
      word2vec_loss(at::zeros({2, 4}), at::zeros({2, 4}), at::zeros({2, 3, 4})).item<float>(),
      4 * std::log(2.0), 1e-5);
}

} // namespace
} // namespace opbench::samples
