// Segmentation losses (segmentation_samples.cpp) against hand-worked values and LibTorch.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <vector>

#include "registry.hpp"
#include "segmentation_ops.hpp"
#include "tensor_checks.hpp"

namespace opbench::samples {
namespace {

TEST(SegmentationSamples, EdgeLossWeighsTheRareEdgesUp) {
  // One image of 4 pixels, one edge: beta = 3/4. Logits 0 (p = 0.5): each pixel's BCE is log 2;
  // the edge weighs 3/4 and the three others 1/4 each: (3/4 + 3/4) log 2.
  const auto edges = at::tensor(std::vector<float>{1, 0, 0, 0}).view({1, 1, 2, 2});
  EXPECT_NEAR(edge_wbce_loss(at::zeros({1, 1, 2, 2}), edges).item<double>(), 1.5 * std::log(2.0), 1e-6);
  // Against LibTorch's weighted BCE over a random batch, image by image.
  auto g = at::make_generator<at::CPUGeneratorImpl>(61);
  const auto logits = at::randn({3, 1, 8, 8}, g), target = (at::rand({3, 1, 8, 8}, g) < 0.2).to(at::kFloat);
  double expected = 0;
  for (int b = 0; b < 3; ++b) {
    const double beta = 1.0 - target[b].sum().item<double>() / 64.0;
    const auto weight = target[b] * beta + (1 - target[b]) * (1 - beta);
    expected += at::binary_cross_entropy_with_logits(logits[b], target[b], weight, {}, at::Reduction::Sum).item<double>();
  }
  EXPECT_NEAR(edge_wbce_loss(logits, target).item<double>(), expected / 3, 1e-4);
}

TEST(SegmentationSamples, GradientLossComparesFiniteDifferences) {
  // Prediction x + y, target 2x on a 3 x 3 grid: horizontal differences 1 vs 2 (|-1| each),
  // vertical 1 vs 0 (1 each): 1 + 1.
  const auto ramp = at::arange(3, at::kFloat);
  const auto pred = (ramp.view({1, 3}) + ramp.view({3, 1})).view({1, 1, 3, 3});
  const auto target = (2 * ramp.view({1, 3}).expand({3, 3})).contiguous().view({1, 1, 3, 3});
  EXPECT_NEAR(gradient_loss(pred, target).item<double>(), 2.0, 1e-6);
  // A shift changes nothing; a mask that keeps one row: no vertical pair, the row's 2 horizontal ones.
  EXPECT_NEAR(gradient_loss(pred + 5, target).item<double>(), 2.0, 1e-6);
  auto mask = at::zeros({1, 1, 3, 3});
  mask.select(2, 1).fill_(1);
  EXPECT_NEAR(gradient_loss(pred, target, mask).item<double>(), 1.0, 1e-6);
}

}  // namespace
}  // namespace opbench::samples
