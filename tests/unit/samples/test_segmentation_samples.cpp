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

TEST(SegmentationSamples, EdgeSmoothnessByHandAndItsEdgeWeights) {
  // A constant disparity is smooth at every scale (16, 8, 4, 2 pixels a side).
  EXPECT_NEAR(edge_smooth_loss(at::full({1, 1, 16, 16}, 0.5), at::rand({1, 3, 16, 16})).item<double>(), 0.0, 1e-7);
  // One scale, unnormalised, a flat image (weights 1): disparity 0 1 / 2 3 (2 x 2): horizontal
  // differences 1 and 1, vertical 2 and 2: 1 + 2.
  const auto disparity = at::tensor(std::vector<float>{0, 1, 2, 3}).view({1, 1, 2, 2});
  EXPECT_NEAR(edge_smooth_loss(disparity, at::zeros({1, 3, 2, 2}), 1, false).item<double>(), 3.0, 1e-6);
  // An image edge between the columns (a step of 2 in every channel) weighs the horizontal term by exp(-2).
  const auto image = at::tensor(std::vector<float>{0, 2, 0, 2}).view({1, 1, 2, 2}).expand({1, 3, 2, 2}).contiguous();
  EXPECT_NEAR(edge_smooth_loss(disparity, image, 1, false).item<double>(), std::exp(-2.0) + 2.0, 1e-6);
}

TEST(SegmentationSamples, IfvLossIsZeroForATeacherTwinAndHandWorkedOtherwise) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(67);
  const auto features = at::randn({2, 4, 4, 4}, g);
  const auto labels = at::randint(0, 3, {2, 8, 8}, g, at::TensorOptions().dtype(at::kLong));
  EXPECT_NEAR(ifv_loss(features, features, labels, 3).item<double>(), 0.0, 1e-10);
  // One image of 2 pixels, one class: the centre is their mean. Student (1, 0) and (0, 1): each is
  // at 45 degrees to (0.5, 0.5), cos = 1/sqrt(2); teacher (1, 0) twice: cos 1. MSE (1 - 1/sqrt(2))^2.
  const auto student = at::tensor(std::vector<float>{1, 0, 0, 1}).view({1, 2, 1, 2});
  const auto teacher = at::tensor(std::vector<float>{1, 1, 0, 0}).view({1, 2, 1, 2});
  const auto one_class = at::zeros({1, 1, 2}, at::kLong);
  const double expected = std::pow(1 - 1 / std::sqrt(2.0), 2);
  EXPECT_NEAR(ifv_loss(student, teacher, one_class, 1).item<double>(), expected, 1e-6);
}

}  // namespace
}  // namespace opbench::samples
