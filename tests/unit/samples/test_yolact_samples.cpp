// YOLACT's samples (yolact_samples.cpp) against independent answers.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

#include "box_ops.hpp"
#include "registry.hpp"
#include "tensor_checks.hpp"
#include "yolact_ops.hpp"

namespace opbench::samples {
namespace {

TEST(YolactSamples, EncodeHandWorkedAndDecodeInvertsIt) {
  // Prior at (0.5, 0.5) of size 0.2 x 0.4; box (0.45, 0.4, 0.65, 0.8): centre (0.55, 0.6), size 0.2
  // x 0.4.
  const auto prior = testing::floats({0.5f, 0.5f, 0.2f, 0.4f}).view({1, 4});
  const auto box = testing::floats({0.45f, 0.4f, 0.65f, 0.8f}).view({1, 4});
  // ((0.55 - 0.5) / (0.1 * 0.2), (0.6 - 0.5) / (0.1 * 0.4), log(1) / 0.2, log(1) / 0.2)
  testing::expect_tensors_close(yolact_encode(box, prior),
                                testing::floats({2.5f, 2.5f, 0.0f, 0.0f}).view({1, 4}));
  auto g = at::make_generator<at::CPUGeneratorImpl>(3);
  const auto priors = at::cat({at::rand({50, 2}, g), at::rand({50, 2}, g) * 0.3 + 0.05}, 1);
  const auto xy = at::rand({50, 2}, g) * 0.5;
  const auto boxes = at::cat({xy, xy + at::rand({50, 2}, g) * 0.4 + 0.05}, 1);
  testing::expect_tensors_close(yolact_decode(yolact_encode(boxes, priors), priors), boxes, 1e-5);
}

TEST(YolactSamples, CropKeepsThePaddedBoxAndZeroesTheRest) {
  // One 5 x 6 mask of ones, box x in [0.5, 0.5 + 1/6) of 6 columns, y in [0.2, 0.6] of 5 rows:
  // x: 3 .. 4 -> padded [2, 5); y: 1 .. 3 -> padded [0, 4).
  const auto masks = at::ones({5, 6, 1});
  const auto box = testing::floats({0.5f, 0.2f, 0.5f + 1.0f / 6, 0.6f}).view({1, 4});
  const auto out = yolact_crop(masks, box);
  for (int r = 0; r < 5; ++r) {
    for (int c = 0; c < 6; ++c) {
      const bool inside = c >= 2 && c < 5 && r >= 0 && r < 4;
      EXPECT_EQ(out[r][c][0].item<float>(), inside ? 1.0f : 0.0f) << r << "," << c;
    }
  }
}

TEST(YolactSamples, CoeffDiversityLossByPairs) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(5);
  const auto coeffs = at::randn({7, 4}, g).to(at::kDouble);
  const auto ids = at::tensor(std::vector<int64_t>{0, 1, 0, 2, 1, 1, 3});
  double sum = 0;
  for (int i = 0; i < 7; ++i) {
    for (int j = 0; j < 7; ++j) {
      const double cos = (coeffs[i] * coeffs[j]).sum().item<double>() /
                         (coeffs[i].norm().item<double>() * coeffs[j].norm().item<double>());
      const double sim = (cos + 1) / 2;
      sum += ids[i].item<int64_t>() == ids[j].item<int64_t>() ? 1 - sim : sim;
    }
  }
  EXPECT_NEAR(coeff_diversity_loss(coeffs, ids).item<double>(), sum / 7, 1e-10);
}

TEST(YolactBoxUtilities, SanitizeIntersectJaccardIndex2d) {
  const auto s = sanitize_coordinates(testing::floats({0.5f}), testing::floats({0.2f}), 100, 1);
  testing::expect_float_close(s[0], testing::floats({19}));
  testing::expect_float_close(s[1], testing::floats({51}));
  auto g = testing::seeded(11);
  const auto p = random_boxes(32, g), t = random_boxes(32, g);
  testing::expect_float_close(intersect(testing::floats({0, 0, 2, 2}).view({1, 4}),
                                        testing::floats({1, 1, 3, 3}).view({1, 4})),
                              testing::floats({1}).view({1, 1}));
  testing::expect_float_close(jaccard(p, t), box_iou(p, t));
  const auto src = at::randn({4, 6}, g);
  const auto idx = at::randint(0, 6, {4, 3}, g, k_long);
  testing::expect_float_close(index2d(src, idx), at::gather(src, 1, idx));
}

} // namespace
} // namespace opbench::samples
