// Every sample against an independent answer: a small example worked out by hand, or an
// identity (decode(encode(b)) == b, IoU of a box with itself is 1, focal loss with gamma 0 is
// binary cross-entropy, ...).
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

at::Tensor boxes(std::vector<float> values) {
  return at::tensor(values).view({-1, 4});
}

TEST(BoxCoders, DecodeOfEncodeIsTheIdentity) {
  auto g = testing::seeded(3);
  const at::Tensor priors = random_boxes(64, g), gts = random_boxes(64, g);
  testing::expect_tensors_close(delta2bbox(priors, bbox2delta(priors, gts), 1e9), gts, 1e-3);
  testing::expect_tensors_close(tblr2bbox(priors, bbox2tblr(priors, gts)), gts, 1e-3);
  // YOLO offsets live in (0, 1) stride units: targets whose centres are near the priors'.
  const at::Tensor near = priors + at::rand({64, 4}, g) * 4.0;
  const at::Tensor stride = at::full({64}, 32.0);
  testing::expect_tensors_close(yolo_decode(priors, yolo_encode(priors, near, stride), stride),
                                near, 1e-3);
  testing::expect_tensors_close(box_cxcywh_to_xyxy(box_xyxy_to_cxcywh(gts)), gts, 1e-4);
}

TEST(BoxCoders, HandWorked) {
  // Proposal [0,0,2,2] (centre 1,1, size 2) to gt [1,1,5,3] (centre 3,2, size 4x2).
  testing::expect_tensors_close(bbox2delta(boxes({0, 0, 2, 2}), boxes({1, 1, 5, 3})),
                                at::tensor({1.0f, 0.5f, std::log(2.0f), 0.0f}).view({1, 4}), 1e-4);
  testing::expect_tensors_close(box_area(boxes({0, 0, 2, 3, 1, 1, 2, 2})), at::tensor({6.0f, 1.0f}),
                                1e-4);
  testing::expect_tensors_close(box_xyxy_to_cxcywh(boxes({0, 0, 2, 4})), boxes({1, 2, 2, 4}), 1e-4);
  // Detectron's legacy widths: (0, 0, 9, 9) is 10 wide, centred at 5; (1, 1, 10, 10) moves it by
  // 1: dx = dy = 0.1, sizes equal; (0, 0, 19, 9) doubles the width: dw = log 2, centre 10.
  testing::expect_tensors_close(bbox2offset(boxes({0, 0, 9, 9}), boxes({1, 1, 10, 10})),
                                boxes({0.1f, 0.1f, 0, 0}), 1e-4);
  testing::expect_tensors_close(
      bbox2offset(boxes({0, 0, 9, 9}), boxes({0, 0, 19, 9}), {10, 10, 5, 5}),
      boxes({5.0f, 0, 5 * std::log(2.0f), 0}), 1e-4);
  // Decoding clamps the log sizes at log(1000 / 16): a width 62.5 times the box's at most.
  testing::expect_tensors_close(offset2bbox(boxes({0, 0, 9, 9}), boxes({0, 0, 100, 0})),
                                boxes({5 - 312.5f, 0, 5 + 312.5f - 1, 9}), 1e-4);
}

TEST(BoxCoders, OffsetsDecodeBackToTheirBoxes) {
  auto g = testing::seeded(3);
  const auto* sample = find("bbox2offset");
  ASSERT_NE(sample, nullptr);
  const auto inputs = sample->make_inputs(sizes_case({100, 4}).at("sizes"), g);
  const at::Tensor offsets = bbox2offset(inputs[0], inputs[1]);
  testing::expect_tensors_close(offset2bbox(inputs[0], offsets), inputs[1], 1e-3);
  // Two classes' offsets a box decode side by side.
  const at::Tensor two = offset2bbox(inputs[0], at::cat({offsets, offsets * 0}, 1));
  testing::expect_tensors_close(two.narrow(1, 0, 4), inputs[1], 1e-3);
  testing::expect_tensors_close(two.narrow(1, 4, 4), inputs[0], 1e-3);
}

TEST(BoxGeometry, IouAndGeneralisedIou) {
  const at::Tensor a = boxes({0, 0, 2, 2}), b = boxes({1, 1, 3, 3});
  EXPECT_NEAR(box_iou(a, b).item<float>(), 1.0 / 7.0, 1e-6); // intersection 1, union 7
  // Enclosing box 3x3 = 9: giou = 1/7 - (9 - 7) / 9.
  EXPECT_NEAR(generalized_box_iou(a, b).item<float>(), 1.0 / 7.0 - 2.0 / 9.0, 1e-6);
  auto g = testing::seeded(3);
  const at::Tensor many = random_boxes(16, g);
  testing::expect_tensors_close(box_iou(many, many).diagonal(), at::ones({16}), 1e-4);
  testing::expect_tensors_close(generalized_box_iou(many, many).diagonal(), at::ones({16}), 1e-4);
  EXPECT_LT(generalized_box_iou(boxes({0, 0, 1, 1}), boxes({5, 5, 6, 6})).item<float>(), 0.0f);
}

TEST(BoxGeometry, MasksToBoxes) {
  at::Tensor masks = at::zeros({1, 5, 6}, at::kBool);
  masks[0][1][2] = true;
  masks[0][3][4] = true;
  testing::expect_tensors_close(masks_to_boxes(masks), boxes({2, 1, 4, 3}), 1e-4);
}

TEST(IouLosses, ZeroForPerfectPredictions) {
  auto g = testing::seeded(3);
  const at::Tensor b = random_boxes(32, g);
  EXPECT_NEAR(iou_loss(b, b).item<float>(), 0.0, 1e-5);
  EXPECT_NEAR(giou_loss(b, b).item<float>(), 0.0, 1e-5);
  EXPECT_NEAR(diou_loss(b, b).item<float>(), 0.0, 1e-5);
  EXPECT_NEAR(ciou_loss(b, b).item<float>(), 0.0, 1e-5);
  // Disjoint boxes: IoU 0, GIoU loss above 1.
  EXPECT_GT(giou_loss(boxes({0, 0, 1, 1}), boxes({5, 5, 6, 6})).item<float>(), 1.0f);
}

TEST(Losses, FocalWithGammaZeroIsWeightedCrossEntropy) {
  auto g = testing::seeded(3);
  const at::Tensor logits = at::randn({8, 4}, g);
  const at::Tensor target =
      at::one_hot(at::randint(0, 4, {8}, g, at::TensorOptions().dtype(at::kLong)), 4)
          .to(at::kFloat);
  const at::Tensor bce = at::binary_cross_entropy_with_logits(logits, target);
  EXPECT_NEAR(sigmoid_focal_loss(logits, target, 0.0, 0.5).item<float>(), 0.5 * bce.item<float>(),
              1e-6);
}

TEST(Losses, MatchLibTorchAndHandWorkedValues) {
  auto g = testing::seeded(3);
  const at::Tensor p = at::randn({16, 4}, g) * 2, t = at::randn({16, 4}, g);
  EXPECT_NEAR(samples::smooth_l1_loss(p, t).item<float>(), at::smooth_l1_loss(p, t).item<float>(),
              1e-6);
  EXPECT_NEAR(samples::l1_loss(p, t).item<float>(), at::l1_loss(p, t).item<float>(), 1e-6);
  EXPECT_NEAR(balanced_l1_loss(p, p).item<float>(), 0.0, 1e-7);
  // The two branches of balanced L1 meet at |diff| = beta.
  const at::Tensor zero = at::zeros({1});
  EXPECT_NEAR(balanced_l1_loss(at::full({1}, 1.0 - 1e-4), zero).item<float>(),
              balanced_l1_loss(at::full({1}, 1.0 + 1e-4), zero).item<float>(), 1e-3);
  EXPECT_NEAR(charbonnier_loss(p, p).item<float>(), 1e-6, 1e-9); // sqrt(eps)
  const at::Tensor labels = at::randint(0, 4, {16}, g, at::TensorOptions().dtype(at::kLong));
  EXPECT_NEAR(label_smooth_celoss(p, labels, 0.0).item<float>(),
              at::cross_entropy_loss(p, labels).item<float>(), 1e-5);
  // Smoothing 0.1 over the module's 6 classes: 0.1 / 6 on every class, 0.9 + 0.1 / 6 on the label.
  const at::Tensor log_p = p.log_softmax(1);
  const double v = 0.1 / 6;
  const double expected =
      -(v * log_p.sum() + 0.9 * log_p.gather(1, labels.view({-1, 1})).sum()).item<double>() / 16;
  EXPECT_NEAR(label_smooth_celoss(p, labels).item<float>(), expected, 1e-4);
  const at::Tensor loss = at::tensor({1.0f, 2.0f, 3.0f, 4.0f}),
                   weight = at::tensor({1.0f, 0.0f, 1.0f, 0.0f});
  EXPECT_NEAR(weight_reduce_loss(loss, weight).item<float>(), 1.0, 1e-6); // (1 + 3) / 4
  EXPECT_NEAR(weight_reduce_loss(loss, weight, "mean", 2.0).item<float>(), 2.0,
              1e-6); // (1 + 3) / 2
  EXPECT_NEAR(weight_reduce_loss(loss, weight, "sum").item<float>(), 4.0, 1e-6);
  EXPECT_TRUE(at::equal(weight_reduce_loss(loss, weight, "none"), loss * weight));
  EXPECT_THROW(weight_reduce_loss(loss, weight, "sum", 2.0), std::invalid_argument);
}

TEST(Sequences, MasksPositionsBitsAndSquash) {
  const auto k_long = at::TensorOptions().dtype(at::kLong);
  EXPECT_TRUE(at::equal(sequence_mask(at::tensor({1, 3}, k_long), 3),
                        at::tensor({1, 0, 0, 1, 1, 1}, k_long).view({2, 3}).to(at::kBool)));
  EXPECT_TRUE(at::equal(make_positions(at::tensor({5, 6, 1, 1, 7, 8}, k_long).view({2, 3}), 1),
                        at::tensor({2, 3, 1, 1, 2, 3}, k_long).view({2, 3})));
  testing::expect_tensors_close(
      dec2bin(at::tensor({5, 2}, k_long), 4),
      at::tensor({0.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f, 1.0f, 0.0f}).view({2, 4}), 1e-4);
  const at::Tensor v = at::tensor({3.0f, 4.0f}).view({1, 2}); // |v| = 5: squashed length 25 / 26
  testing::expect_tensors_close(squash(v), v / 5.0 * (25.0 / 26.0), 1e-4);
}

TEST(BoxCoders, LegacyDecodeOfEncodeAndRois) {
  const auto rois = bbox2roi({testing::floats({0, 0, 1, 1, 2, 2, 3, 3}).view({2, 4}),
                              testing::floats({5, 5, 6, 6}).view({1, 4})});
  testing::expect_float_close(
      rois, testing::floats({0, 0, 0, 1, 1, 0, 2, 2, 3, 3, 1, 5, 5, 6, 6}).view({3, 5}));
  auto g = testing::seeded(11);
  const auto p = random_boxes(32, g), t = random_boxes(32, g);
  testing::expect_float_close(legacy_delta2bbox(p, legacy_bbox2delta(p, t)), t, 1e-3);
}

// A sample that differentiates only some inputs names floating device inputs its loss depends on.
} // namespace
} // namespace opbench::samples
