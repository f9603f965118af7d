// MMPose's associative-embedding loss and MMAction2's loss parsing (pose_action_samples.cpp)
// against plain loops.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <vector>

#include "pose_action_ops.hpp"
#include "registry.hpp"
#include "tensor_checks.hpp"

namespace opbench::samples {
namespace {

TEST(PoseActionSamples, AeLossPullsEachPersonTogetherAndPushesPeopleApart) {
  // One image, tags 0, 0.25, ..., 2.25; person A: joints at tags 0.25 and 0.75 (visible), person
  // B: tag 2.0 visible and 2.25 not; person C: nothing visible.
  const auto tags = (at::arange(10, at::kFloat) * 0.25).view({1, 10, 1});
  const auto joints =
      at::tensor(std::vector<int64_t>{1, 1, 3, 1, 8, 1, 9, 0, 0, 0, 5, 0}).view({1, 3, 2, 2});
  const auto [push, pull] = ae_loss(tags, joints);
  // Means 0.5 and 2; pull: A's (0.25^2 + 0.25^2) / 2, B's 0, over 2 people.
  EXPECT_NEAR(pull[0].item<double>(), 0.0625 / 2, 1e-6);
  // Push: exp(-1.5^2) twice (the diagonal's exp(0) taken off) over 2 * 1 pairs, times 0.5.
  EXPECT_NEAR(push[0].item<double>(), 2 * std::exp(-2.25) / 2 * 0.5, 1e-6);
  // One person: push 0, pull its own; nobody: both 0.
  const auto one = ae_loss(tags, at::tensor(std::vector<int64_t>{1, 1, 3, 1}).view({1, 1, 2, 2}));
  EXPECT_EQ(one.first[0].item<double>(), 0.0);
  EXPECT_NEAR(one.second[0].item<double>(), 0.0625, 1e-6);
  const auto nobody = ae_loss(tags, at::zeros({1, 2, 2, 2}, at::kLong));
  EXPECT_EQ(nobody.second[0].item<double>(), 0.0);
}

TEST(PoseActionSamples, AeLossIsDifferentiableInTheTags) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(41);
  const auto* sample = find("aeloss");
  ASSERT_NE(sample, nullptr);
  auto inputs = sample->make_inputs(sizes_case({2, 8, 8}).at("sizes"), g);
  inputs[0].requires_grad_(true);
  const auto out = sample->body(inputs);
  (out[0].sum() + out[1].sum()).backward();
  EXPECT_GT(inputs[0].grad().abs().sum().item<double>(), 0.0);
}

TEST(PoseActionSamples, LandmarkHeatmapsAreSeparableAndPeakAtTheirLandmarks) {
  // Two landmarks, (0.5, -0.25) and (-1, 1), on a 9-point grid from -1 to 1 (step 0.25).
  const auto grid = at::linspace(-1.0, 1.0, 9, at::kDouble).view({1, 1, 9});
  const auto maps =
      landmark2heatmap(at::tensor(std::vector<double>{0.5, -0.25, -1, 1}).view({1, 4}), grid, grid);
  ASSERT_EQ(maps.sizes(), (std::vector<int64_t>{1, 2, 9, 9}));
  const auto g = [](double d) { return std::exp(-std::sqrt(std::abs(d) * 20 + 1e-4)); };
  for (int row = 0; row < 9; ++row) {
    for (int col = 0; col < 9; ++col) {
      const double u = -1 + 0.25 * col, v = -1 + 0.25 * row; // the grid's x (columns) and y (rows)
      EXPECT_NEAR(maps[0][0][row][col].item<double>(), g(v + 0.25) * g(u - 0.5), 1e-12)
          << row << ", " << col;
      EXPECT_NEAR(maps[0][1][row][col].item<double>(), g(v - 1) * g(u + 1), 1e-12)
          << row << ", " << col;
    }
  }
  EXPECT_EQ(maps[0][0].argmax().item<int64_t>(), 3 * 9 + 6); // row y = -0.25, column x = 0.5
  EXPECT_EQ(maps[0][1].argmax().item<int64_t>(), 8 * 9 + 0);
}

TEST(PoseActionSamples, ParsedLossIsTheSumOfTheLossesMeans) {
  const auto a = at::tensor(std::vector<float>{1, 3}), b1 = at::tensor(std::vector<float>{2, 2}),
             b2 = at::tensor(std::vector<float>{0, 4}),
             acc = at::tensor(std::vector<float>{0.5, 0.7});
  const auto [loss, log] = parse_losses(
      {{"loss_cls", {a}, false}, {"loss_bbox", {b1, b2}, true}, {"top1_acc", {acc}, false}});
  // 2 + (2 + 2); the accuracy is logged, not summed.
  EXPECT_NEAR(loss.item<double>(), 6.0, 1e-6);
  ASSERT_EQ(log.size(), 4u);
  EXPECT_NEAR(log[0], 2.0, 1e-6);
  EXPECT_NEAR(log[1], 4.0, 1e-6);
  EXPECT_NEAR(log[2], 0.6, 1e-6);
  EXPECT_NEAR(log[3], 6.0, 1e-6);
  // The sample's structure: 4 entries -> 5 tensors; its output, the total.
  auto g = at::make_generator<at::CPUGeneratorImpl>(43);
  const auto* sample = find("parse_loss");
  ASSERT_NE(sample, nullptr);
  const auto inputs = sample->make_inputs(sizes_case({16, 4}).at("sizes"), g);
  ASSERT_EQ(inputs.size(), 5u);
  const auto out = sample->body(inputs);
  const double expected = inputs[0].mean().item<double>() + inputs[1].mean().item<double>() +
                          inputs[2].mean().item<double>() + inputs[3].mean().item<double>();
  EXPECT_NEAR(out[0].item<double>(), expected, 1e-5);
}

TEST(PoseActionLosses, BmnAndJointsMse) {
  EXPECT_NEAR(bmn_loss(testing::floats({0.9f, 0.1f}), testing::floats({1, 0})).item<float>(),
              -std::log(0.9 + 1e-5), 1e-4);
  auto g = testing::seeded(11);
  const auto a = at::randn({4, 3, 5, 5}, g), b = at::randn({4, 3, 5, 5}, g);
  EXPECT_NEAR(joints_mse_loss(a, b, at::ones({4, 3, 1})).item<float>(),
              0.5 * at::mse_loss(a, b).item<float>(), 1e-5);
}

} // namespace
} // namespace opbench::samples
