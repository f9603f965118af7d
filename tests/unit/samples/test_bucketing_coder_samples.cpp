// MMDetection's bucketing box coder (bucketing_coder_samples.cpp) against hand-worked buckets
// and its own inverse.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "bucketing_coder_ops.hpp"
#include "registry.hpp"
#include "tensor_checks.hpp"

namespace opbench::samples {
namespace {

TEST(BucketingCoder, BucketCentresOfAHandWorkedBox) {
  // (0, 0, 14, 28) with 14 buckets, unscaled: buckets 1 wide and 2 high, 7 a side.
  const Buckets b = generate_buckets(testing::floats({0, 0, 14, 28}).view({1, 4}), 14, 1.0);
  testing::expect_tensors_close(b.width, testing::floats({1}));
  testing::expect_tensors_close(b.height, testing::floats({2}));
  testing::expect_tensors_close(b.left,
                                testing::floats({0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5}).view({1, 7}));
  testing::expect_tensors_close(
      b.right, testing::floats({13.5, 12.5, 11.5, 10.5, 9.5, 8.5, 7.5}).view({1, 7}));
  testing::expect_tensors_close(b.top, testing::floats({1, 3, 5, 7, 9, 11, 13}).view({1, 7}));
  testing::expect_tensors_close(b.bottom,
                                testing::floats({27, 25, 23, 21, 19, 17, 15}).view({1, 7}));
  // Scaled 2x about the centre (7, 14): (-7, -14, 21, 42), buckets 2 wide; 3 buckets give 2 a side.
  const Buckets scaled = generate_buckets(testing::floats({0, 0, 14, 28}).view({1, 4}), 3, 2.0);
  testing::expect_tensors_close(scaled.width, testing::floats({28.0f / 3}));
  testing::expect_tensors_close(
      scaled.left, testing::floats({-7 + 0.5f * 28 / 3, -7 + 1.5f * 28 / 3}).view({1, 2}));
}

TEST(BucketingCoder, TargetsOfAHandWorkedBox) {
  // The ground truth is the proposal moved right by 1.2 buckets: the left side's nearest bucket
  // is the second (offset 1.5 - 1.2 = 0.3), the first is 0.7 away; the other sides as the left.
  const auto proposal = testing::floats({0, 0, 14, 14}).view({1, 4}),
             gt = testing::floats({1.2f, 0, 15.2f, 14}).view({1, 4});
  const BucketTargets t = bbox2bucket(proposal, gt, 14, 1.0);
  ASSERT_EQ(t.offsets.sizes(), (std::vector<int64_t>{1, 28}));
  testing::expect_tensors_close(t.offsets.narrow(1, 0, 3),
                                testing::floats({-0.7f, 0.3f, 1.3f}).view({1, 3}));
  // Weights: the nearest (bucket 1) always; the second nearest (bucket 0, 0.7 < 1) too.
  testing::expect_tensors_close(t.offset_weights.narrow(1, 0, 7),
                                testing::floats({1, 1, 0, 0, 0, 0, 0}).view({1, 7}));
  testing::expect_tensors_close(t.labels.narrow(1, 0, 7),
                                testing::floats({0, 1, 0, 0, 0, 0, 0}).view({1, 7}));
  // Classification: buckets within 1 of the side that are not the label are ignored (weight 0).
  testing::expect_tensors_close(t.label_weights.narrow(1, 0, 7),
                                testing::floats({0, 1, 1, 1, 1, 1, 1}).view({1, 7}));
  // The top side is exact: its nearest bucket is the first, 0.5 away; the second is 1.5 away.
  testing::expect_tensors_close(t.offset_weights.narrow(1, 14, 7),
                                testing::floats({1, 0, 0, 0, 0, 0, 0}).view({1, 7}));
}

TEST(BucketingCoder, DecodingTheTargetsGivesTheGroundTruthBack) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(29);
  const auto proposals = random_boxes(50, g);
  const auto wh = (proposals.narrow(1, 2, 2) - proposals.narrow(1, 0, 2)).repeat({1, 2});
  const auto gt = proposals + at::randn({50, 4}, g) * 0.1 * wh;
  const BucketTargets t = bbox2bucket(proposals, gt, 14, 1.7);
  // Scores that pick each side's labelled bucket, and the encoded offsets.
  const DecodedBuckets d = bucket2bbox(proposals, t.labels * 20.0, t.offsets, 14, 1.7);
  testing::expect_tensors_close(d.boxes, gt, 1e-3);
  // The picked bucket's probability, and its neighbour's when the second best is one.
  ASSERT_EQ(d.confidence.sizes(), (std::vector<int64_t>{50}));
  EXPECT_GT(d.confidence.min().item<float>(), 0.99f);
  // Clipped to the image.
  const DecodedBuckets clipped =
      bucket2bbox(proposals * 10, t.labels * 20.0, t.offsets, 14, 1.7, 100, 200);
  EXPECT_LE(clipped.boxes.max().item<float>(), 199.0f);
  EXPECT_GE(clipped.boxes.min().item<float>(), 0.0f);
}

} // namespace
} // namespace opbench::samples
