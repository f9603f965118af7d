// MMDetection's GHM-R and PISA's CARL losses (loss_samples.cpp) against element-by-element loops.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <map>
#include <vector>

#include "loss_ops.hpp"
#include "registry.hpp"
#include "tensor_checks.hpp"

namespace opbench::samples {
namespace {

std::vector<double> values(const at::Tensor& t) {
  const auto c = t.to(at::kDouble).contiguous().view(-1);
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

TEST(LossSamples, DiceOfAPerfectAndOfAHandWorkedPrediction) {
  // Two classes, four pixels, labels 0 0 1 1; scores that make the softmax certain: per class
  // (2 * 2 + s) over (2 + 2 - 2 + s) (the Jaccard form takes the intersection off): about 2.
  const double s = 1e-5;
  const auto labels = at::tensor(std::vector<int64_t>{0, 0, 1, 1}).view({1, 2, 2});
  const auto certain = at::one_hot(labels, 2).movedim(-1, 1).to(at::kDouble) * 50.0;
  EXPECT_NEAR(dice_loss(certain, labels).item<double>(), 1.0 - (4 + s) / (2 + s), 1e-12);
  // Equal scores: p = 0.5 everywhere; per class 2 * (0.5 + 0.5) over 2 + 4 * 0.25 - 1: 1, the loss
  // 0.
  EXPECT_NEAR(dice_loss(at::zeros({1, 2, 2, 2}, at::kDouble), labels).item<double>(), 0.0, 1e-9);
  // Targets of the scores' shape are taken as they are: p = 0.5, t = 1 at the 2 pixels of class 0
  // and nowhere in class 1: class 0 (2 + s) / (2 + 0.5 - 1 + s), class 1 s / (0 + 0.5 - 0 + s).
  const auto targets =
      at::one_hot(at::zeros({1, 2, 1}, at::kLong), 2).movedim(-1, 1).to(at::kDouble);
  const double expected = 1.0 - ((2 + s) / (1.5 + s) + s / (0.5 + s)) / 2;
  EXPECT_NEAR(dice_loss(at::zeros({1, 2, 2, 1}, at::kDouble), targets).item<double>(), expected,
              1e-12);
}

TEST(LossSamples, AssociativeEmbeddingPullAndPushByHand) {
  // One image, three object slots, two real: A with corner tags 0.2 and 0.4 (mean 0.3), B with 1.0
  // and 1.0; the third slot masked out.
  const auto tl = at::tensor(std::vector<double>{0.2, 1.0, 5.0}).view({1, 3});
  const auto br = at::tensor(std::vector<double>{0.4, 1.0, -5.0}).view({1, 3});
  const auto mask = at::tensor(std::vector<int64_t>{1, 1, 0}).view({1, 3}).to(at::kBool);
  // Pull: (0.1^2 + 0.1^2) / (2 + 1e-4) for A, 0 for B.
  EXPECT_NEAR(associative_pull_loss(tl, br, mask).item<double>(), 0.02 / (2 + 1e-4), 1e-12);
  // Push over the four pairs of real objects (A-A, A-B, B-A, B-B): relu(1 - |d|) - 1 / (2 + 1e-4),
  // each over 2 * 1 + 1e-4: d = 0 twice (relu 1), 0.7 twice (relu 0.3).
  const double per = 1 / (2 + 1e-4), over = 2 + 1e-4;
  EXPECT_NEAR(associative_push_loss(tl, br, mask).item<double>(),
              (2 * (1 - per) + 2 * (0.3 - per)) / over, 1e-12);
  // Trailing tag dimensions of 1 are squeezed; nothing masked: nothing summed.
  EXPECT_NEAR(associative_pull_loss(tl.unsqueeze(-1), br.unsqueeze(-1), mask).item<double>(),
              0.02 / (2 + 1e-4), 1e-12);
  EXPECT_EQ(associative_push_loss(tl, br, mask.logical_and(mask.logical_not())).item<double>(),
            0.0);
}

TEST(LossSamples, GaussianFocalLossAgainstAnElementLoop) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(53);
  const auto logits = at::randn({30, 3}, g);
  auto target = at::rand({30, 3}, g) * 0.9;
  target.masked_fill_(at::rand({30, 3}, g) < 0.1, 1.0);
  const auto x = values(logits), t = values(target);
  double positives = 0, negatives = 0;
  int centres = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double p = std::min(std::max(1 / (1 + std::exp(-x[i])), 1e-4), 1 - 1e-4);
    if (t[i] == 1.0) {
      positives += std::log(p) * std::pow(1 - p, 2);
      ++centres;
    } else {
      negatives += std::log(1 - p) * p * p * std::pow(1 - t[i], 4);
    }
  }
  ASSERT_GT(centres, 0);
  EXPECT_NEAR(gaussian_sigmoid_focal_loss(logits, target).item<double>(),
              -(positives + negatives) / centres, 1e-4);
  // No centre: minus the negatives' sum.
  EXPECT_NEAR(gaussian_sigmoid_focal_loss(logits, target * 0.5).item<double>(),
              -(at::log(1 - logits.sigmoid().clamp(1e-4, 1 - 1e-4)) *
                logits.sigmoid().clamp(1e-4, 1 - 1e-4).pow(2) * (1 - target * 0.5).pow(4))
                   .sum()
                   .item<double>(),
              1e-3);
}

TEST(LossSamples, GhmrWeighsEachGradientBinByHowFewItHolds) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(31);
  const auto pred = at::randn({40, 4}, g) * 0.05, target = at::randn({40, 4}, g) * 0.05;
  const auto weight = (at::rand({40, 4}, g) > 0.25).to(at::kFloat);
  const double mu = 0.02;
  const auto p = values(pred), t = values(target), w = values(weight);
  // The bin of each counted element's gradient length, and how many share it.
  std::vector<int> bin(p.size(), -1);
  std::map<int, int> count;
  double total = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    total += w[i];
    if (w[i] <= 0)
      continue;
    const double d = p[i] - t[i], length = std::abs(d / std::sqrt(mu * mu + d * d));
    bin[i] = std::min(static_cast<int>(length * 10), 9);
    ++count[bin[i]];
  }
  double expected = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (bin[i] < 0)
      continue;
    const double d = p[i] - t[i];
    expected += (std::sqrt(d * d + mu * mu) - mu) * (total / count[bin[i]]) /
                static_cast<double>(count.size());
  }
  expected /= total;
  EXPECT_NEAR(ghmr_loss(pred, target, weight).item<double>(), expected, 1e-6 * std::abs(expected));
  EXPECT_GT(count.size(), 2u); // the case spreads over several bins
  // Nothing counted: zero.
  EXPECT_EQ(ghmr_loss(pred, target, at::zeros_like(weight)).item<double>(), 0.0);
}

TEST(LossSamples, CarlWeighsThePositivesRegressionByTheirScores) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(37);
  const auto scores = at::randn({6, 4}, g), pred = at::randn({6, 4}, g),
             target = at::randn({6, 4}, g);
  // Three classes and background (3): rows 0, 2 and 5 positive.
  const auto labels = at::tensor(std::vector<int64_t>{1, 3, 0, 3, 3, 2});
  const auto prob = values(scores.softmax(-1));
  const auto pv = values(pred), tv = values(target);
  const std::vector<int> positive{0, 2, 5};
  const std::vector<int> label{1, 0, 2};
  std::vector<double> weight;
  double weight_sum = 0;
  for (std::size_t i = 0; i < positive.size(); ++i) {
    weight.push_back(0.2 + 0.8 * prob[positive[i] * 4 + label[i]]);
    weight_sum += weight.back();
  }
  double expected = 0;
  for (std::size_t i = 0; i < positive.size(); ++i) {
    for (int c = 0; c < 4; ++c) {
      const double d = std::abs(pv[positive[i] * 4 + c] - tv[positive[i] * 4 + c]);
      const double smooth = d < 1 ? 0.5 * d * d : d - 0.5;
      expected += smooth / 6.0 * weight[i] * 3.0 / weight_sum;
    }
  }
  const auto loss = carl_loss(scores, labels, pred, target, 3);
  ASSERT_EQ(loss.sizes(), (std::vector<int64_t>{1}));
  EXPECT_NEAR(loss.item<double>(), expected, 1e-5);
  // No positive: zero, still tied to the scores.
  EXPECT_EQ(carl_loss(scores, at::full({6}, 3, at::kLong), pred, target, 3).item<double>(), 0.0);
  // Class-specific boxes (N, classes x 4) pick each positive's class.
  const auto per_class = at::randn({6, 12}, g);
  const auto picked = at::stack(
      {per_class[0].narrow(0, 4, 4), per_class[2].narrow(0, 0, 4), per_class[5].narrow(0, 8, 4)});
  const auto agnostic = at::zeros({6, 4});
  agnostic.index_put_({at::tensor(std::vector<int64_t>{0, 2, 5})}, picked);
  EXPECT_NEAR(carl_loss(scores, labels, per_class, target, 3).item<double>(),
              carl_loss(scores, labels, agnostic, target, 3).item<double>(), 1e-6);
}

TEST(DetectionLosses, BoundedIouFocalVarifocalL2Accuracy) {
  auto g = testing::seeded(11);
  const auto p = random_boxes(32, g), t = random_boxes(32, g);
  EXPECT_NEAR(bounded_iou_loss(p, p).item<float>(), 0.0, 1e-4);
  const auto logits = at::randn({16, 5}, g);
  const auto labels = at::randint(0, 5, {16}, g, k_long);
  EXPECT_NEAR(softmax_focal_loss(logits, labels, 0.0).item<float>(),
              at::cross_entropy_loss(logits, labels).item<float>(), 1e-5);
  // pred 0.5 at a peak: -log(0.5) * 0.5^2.
  EXPECT_NEAR(gaussian_focal_loss(testing::floats({0.5f}), testing::floats({1})).item<float>(),
              std::log(2.0) * 0.25, 1e-5);
  const auto a = at::randn({4, 3, 5, 5}, g), b = at::randn({4, 3, 5, 5}, g);
  EXPECT_NEAR(l2_loss(a, b).item<float>(), at::mse_loss(a, b).item<float>(), 1e-6);
  const auto target = at::rand({8, 4}, g) + 0.1;
  const auto vf_logits = at::randn({8, 4}, g);
  EXPECT_NEAR(
      varifocal_loss(vf_logits, target).item<float>(),
      (at::binary_cross_entropy_with_logits(vf_logits, target, {}, {}, at::Reduction::None) *
       target)
          .mean()
          .item<float>(),
      1e-6);
  EXPECT_TRUE(at::equal(mmdetection_accuracy(testing::floats({0.1f, 0.9f, 0.8f, 0.2f}).view({2, 2}),
                                             testing::longs({1, 1}), {1, 2}),
                        testing::floats({50, 100})));
}

} // namespace
} // namespace opbench::samples
