// Detection building blocks (detection_blocks_samples.cpp) against independent answers.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "box_ops.hpp"
#include "detection_blocks_ops.hpp"
#include "registry.hpp"
#include "tensor_checks.hpp"

namespace opbench::samples {
namespace {

TEST(DetectionBlocks, OverlapsAgreeWithDetrsIousAndAHandWorkedIof) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(17);
  const auto a = random_boxes(6, g), b = random_boxes(9, g);
  testing::expect_tensors_close(bbox_overlaps(a, b), box_iou(a, b));
  testing::expect_tensors_close(bbox_overlaps(a, b, "giou"), generalized_box_iou(a, b));
  // Box (0, 0, 2, 2) and (1, 1, 5, 5): overlap 1, areas 4 and 16: iou 1/19, iof 1/4.
  const auto p = testing::floats({0, 0, 2, 2}).view({1, 4}),
             q = testing::floats({1, 1, 5, 5}).view({1, 4});
  testing::expect_tensors_close(bbox_overlaps(p, q), testing::floats({1.0f / 19}).view({1, 1}));
  testing::expect_tensors_close(bbox_overlaps(p, q, "iof"), testing::floats({0.25f}).view({1, 1}));
  EXPECT_EQ(bbox_overlaps(at::zeros({0, 4}), q).sizes(), (std::vector<int64_t>{0, 1}));
}

TEST(DetectionBlocks, RoiLevelsByScale) {
  // Square RoIs of side 28, 112, 224, 448 and 1000 with finest scale 56: log2(0.5) -> 0 (clamped),
  // 1, 2, 3, and log2(17.9) = 4.2 -> 3 (clamped to 4 levels).
  std::vector<float> v;
  for (float side : {28.0f, 112.0f, 224.0f, 448.0f, 1000.0f})
    v.insert(v.end(), {0, 10, 10, 10 + side, 10 + side});
  EXPECT_TRUE(at::equal(map_roi_levels(testing::floats(v).view({5, 5})),
                        at::tensor(std::vector<int64_t>{0, 1, 2, 3, 3})));
}

TEST(DetectionBlocks, GridAnchorsAreTheBaseAnchorsShiftedToEveryCell) {
  const auto base = testing::floats({-4, -2, 4, 2, -3, -3, 3, 3}).view({2, 4});
  const auto all = single_level_grid_anchors(base, 3, 5, 8);
  ASSERT_EQ(all.sizes(), (std::vector<int64_t>{3 * 5 * 2, 4}));
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 5; ++x) {
      for (int a = 0; a < 2; ++a) {
        const auto shift = testing::floats({8.0f * x, 8.0f * y, 8.0f * x, 8.0f * y});
        testing::expect_tensors_close(all[(y * 5 + x) * 2 + a], base[a] + shift);
      }
    }
  }
}

TEST(DetectionBlocks, BoxesOfDifferentClassesNeverOverlapAfterTheOffset) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(19);
  const auto boxes = random_boxes(40, g, 50.0);
  const auto idxs = at::randint(0, 4, {40}, g, at::TensorOptions().dtype(at::kLong));
  const auto moved = boxes_for_nms(boxes, idxs);
  const auto same = idxs.unsqueeze(1) == idxs.unsqueeze(0);
  // Within a class the IoUs are unchanged; across classes they are zero.
  testing::expect_tensors_close(box_iou(moved, moved).masked_select(same),
                                box_iou(boxes, boxes).masked_select(same), 1e-4);
  EXPECT_EQ(box_iou(moved, moved).masked_select(~same).max().item<float>(), 0.0f);
  EXPECT_EQ(boxes_for_nms(at::zeros({0, 4}), at::zeros({0}, at::kLong)).size(0), 0);
}

TEST(DetectionBlocks, FrozenBatchNormIsBatchNormInEvalMode) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(23);
  const auto x = at::randn({2, 5, 4, 3}, g), w = at::rand({5}, g) + 0.5, b = at::randn({5}, g);
  const auto mean = at::randn({5}, g), var = at::rand({5}, g) + 0.5;
  testing::expect_tensors_close(frozen_batchnorm2d(x, w, b, mean, var),
                                at::batch_norm(x, w, b, mean, var, false, 0.1, 1e-5, false), 1e-5);
}

TEST(DetectionBlocks, FcosTakesTheSmallestSuitableBoxOfEachLocation) {
  // Box 1 (0, 0, 100, 100) of class 3 holds box 2 (40, 40, 60, 60) of class 5.
  const auto boxes = testing::floats({0, 0, 100, 100, 40, 40, 60, 60}).view({2, 4});
  const auto labels = at::tensor(std::vector<int64_t>{3, 5});
  // (50, 50) lies in both: the small one (distances 10 a side); (10, 20) only in the big one;
  // (150, 150) in none; (50, 45) in both but its range [0, 8] suits neither (largest side 50 / 15).
  const auto locations = testing::floats({50, 50, 10, 20, 150, 150, 50, 45}).view({4, 2});
  const auto ranges = testing::floats({0, 64, 0, 128, 0, 64, 0, 8}).view({4, 2});
  const FcosTargets t = fcos_matcher(locations, ranges, boxes, labels);
  EXPECT_TRUE(at::equal(t.labels, at::tensor(std::vector<int64_t>{5, 3, 0, 0})));
  testing::expect_tensors_close(t.distances[0], testing::floats({10, 10, 10, 10}));
  testing::expect_tensors_close(t.distances[1], testing::floats({10, 20, 90, 80}));
}

TEST(DetectionBlocks, MaskPredictorPastesEachRoisThresholdedClassMaskIntoItsImage) {
  // Two images: 6 x 8 at scale 1, 4 x 4 at scale 2. RoI 0: image 0, (1, 2)-(4, 3), class 1, a
  // 4 x 2 paste; RoI 1: image 1, (2, 2)-(5, 5) at scale 2 -> (1, 1)-(2, 2), class 0, 2 x 2; RoI 2:
  // image 0 again, (6, 4)-(9, 7), class 0, clipped to columns 6-7 and rows 4-5.
  const auto rois = at::tensor(std::vector<float>{0, 1, 2, 4, 3, 0.9f, 1, //
                                                  1, 2, 2, 5, 5, 0.8f, 0, //
                                                  0, 6, 4, 9, 7, 0.7f, 0})
                        .view({3, 7});
  // Class 0 all 0.9 (every pixel kept); class 1 0.9 on the left half, 0.1 on the right (2 x 2).
  auto heat = at::zeros({3, 2, 2, 2});
  heat.select(1, 0).fill_(0.9);
  heat.select(1, 1).select(2, 0).fill_(0.9);
  heat.select(1, 1).select(2, 1).fill_(0.1);
  const auto info = at::tensor(std::vector<double>{6, 8, 1, 6, 8, 4, 4, 2, 4, 4}).view({2, 5});
  const auto masks = mask_predictor(rois, heat, info);
  ASSERT_EQ(masks.size(), 3u);
  ASSERT_EQ(masks[0].sizes(), (std::vector<int64_t>{6, 8}));
  ASSERT_EQ(masks[1].sizes(), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(masks[0].scalar_type(), at::kByte);
  // RoI 0: rows 2-3, columns 1-4; the resized class-1 map is above 0.5 on its left half only
  // (bilinear from 2 to 4 columns: 0.9, 0.7, 0.3, 0.1).
  auto expected0 = at::zeros({6, 8}, at::kByte);
  expected0.narrow(0, 2, 2).narrow(1, 1, 2).fill_(1);
  EXPECT_TRUE(at::equal(masks[0], expected0)) << masks[0];
  auto expected1 = at::zeros({4, 4}, at::kByte);
  expected1.narrow(0, 1, 2).narrow(1, 1, 2).fill_(1);
  EXPECT_TRUE(at::equal(masks[1], expected1)) << masks[1];
  auto expected2 = at::zeros({6, 8}, at::kByte);
  expected2.narrow(0, 4, 2).narrow(1, 6, 2).fill_(1);
  EXPECT_TRUE(at::equal(masks[2], expected2)) << masks[2];
}

TEST(DetectionBlocks, BoxTargetsPositivesFirstThenBackground) {
  // One positive RoI (0, 0, 10, 10) matched to (1, 1, 11, 11) of class 7, two negatives.
  const auto pos = testing::floats({0, 0, 10, 10}).view({1, 4}),
             gt = testing::floats({1, 1, 11, 11}).view({1, 4});
  const auto neg = testing::floats({50, 50, 60, 60, 70, 70, 90, 90}).view({2, 4});
  const BoxTargets t = get_target_single(pos, neg, gt, at::tensor(std::vector<int64_t>{7}));
  EXPECT_TRUE(at::equal(t.labels, at::tensor(std::vector<int64_t>{7, 80, 80})));
  testing::expect_tensors_close(t.label_weights, testing::floats({1, 1, 1}));
  // Centres move by 1 on a side of 10: dx = dy = 0.1, over stds 0.1 -> 1; equal sizes -> 0.
  testing::expect_tensors_close(t.bbox_targets,
                                testing::floats({1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}).view({3, 4}));
  testing::expect_tensors_close(t.bbox_weights,
                                testing::floats({1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}).view({3, 4}));
  // A positive weight from the config; no positives at all.
  testing::expect_tensors_close(
      get_target_single(pos, neg, gt, at::tensor(std::vector<int64_t>{7}), 80, 2.0).label_weights,
      testing::floats({2, 1, 1}));
  const BoxTargets none =
      get_target_single(at::zeros({0, 4}), neg, at::zeros({0, 4}), at::zeros({0}, at::kLong));
  EXPECT_TRUE(at::equal(none.labels, at::tensor(std::vector<int64_t>{80, 80})));
  EXPECT_EQ(none.bbox_weights.sum().item<float>(), 0.0f);
}

TEST(DetectionBlocks, BoxExpandCopiesEachPositiveIntoItsClassColumns) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(73);
  const auto targets = at::randn({6, 4}, g), weights = at::rand({6, 4}, g);
  const auto labels = at::tensor(std::vector<int64_t>{0, 3, 9, 0, 1, 3});
  const auto out =
      bbox_target_expand(targets, weights, labels, at::zeros({6, 40}), at::zeros({6, 40}));
  ASSERT_EQ(out.size(), 2u);
  for (int64_t i = 0; i < 6; ++i) {
    const auto label = labels[i].item<int64_t>();
    for (int64_t col = 0; col < 40; ++col) {
      const bool mine = label > 0 && col / 4 == label;
      EXPECT_EQ(out[0][i][col].item<float>(), mine ? targets[i][col % 4].item<float>() : 0.0f)
          << i << ", " << col;
      EXPECT_EQ(out[1][i][col].item<float>(), mine ? weights[i][col % 4].item<float>() : 0.0f)
          << i << ", " << col;
    }
  }
}

TEST(AssignersAndSamplers, MaxIouAssignmentAndRandomSampling) {
  const auto overlaps = testing::floats({0.9f, 0.1f, 0.45f, 0.2f, 0.3f, 0.1f}).view({2, 3});
  // box 0: IoU 0.9 with gt 0 -> 1; box 1: under 0.4, but gt 1's best box -> 2; box 2: in between ->
  // -1.
  EXPECT_TRUE(at::equal(assign_wrt_overlaps(overlaps), testing::longs({1, 2, -1})));
  auto g = testing::seeded(11);
  const auto assigned = at::randint(0, 3, {1000}, g, k_long);
  const auto picked = random_sampler(assigned, 100, 0.25);
  EXPECT_EQ(picked[0].size(0), 25);
  EXPECT_TRUE(assigned.index({picked[0]}).gt(0).all().item<bool>());
  EXPECT_EQ(picked[0].size(0) + picked[1].size(0), 100);
  EXPECT_TRUE(assigned.index({picked[1]}).eq(0).all().item<bool>());
}

TEST(AnchorsAndPoints, LocationsFlagsAndBaseAnchorsHandWorked) {
  testing::expect_float_close(compute_locations(2, 3, 8).narrow(0, 0, 4),
                              testing::floats({4, 4, 12, 4, 20, 4, 4, 12}).view({4, 2}));
  EXPECT_TRUE(at::equal(valid_flags(2, 3, 1, 2, 2).to(at::kLong),
                        testing::longs({1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0})));
  testing::expect_float_close(gen_base_anchors(4, testing::floats({1, 4}), testing::floats({1})),
                              testing::floats({-2, -2, 2, 2, -1, -4, 1, 4}).view({2, 4}));
}

} // namespace
} // namespace opbench::samples
