#pragma once
// The math of the long-tail samples, as plain functions of tensors (written from what each
// function computes, after its source; see each sample's url). Boxes are (x1, y1, x2, y2).

#include <ATen/ATen.h>

namespace opbench::samples {

// Box coders (MMDetection DeltaXYWHBBoxCoder with means 0, stds 1).
at::Tensor bbox2delta(const at::Tensor& proposals, const at::Tensor& gt);
at::Tensor delta2bbox(const at::Tensor& rois, const at::Tensor& deltas, double max_ratio = 4.135166556742356);
// TBLR coder: distances of the box sides from the prior's centre, normalised by its size.
at::Tensor bbox2tblr(const at::Tensor& priors, const at::Tensor& gts, double normalizer = 4.0);
at::Tensor tblr2bbox(const at::Tensor& priors, const at::Tensor& tblr, double normalizer = 4.0);
// YOLO coder: centre offsets in stride units (sigmoid space), log size ratios.
at::Tensor yolo_encode(const at::Tensor& bboxes, const at::Tensor& gt, const at::Tensor& stride, double eps = 1e-6);
at::Tensor yolo_decode(const at::Tensor& bboxes, const at::Tensor& pred, const at::Tensor& stride);

at::Tensor box_area(const at::Tensor& boxes);
at::Tensor box_cxcywh_to_xyxy(const at::Tensor& boxes);
at::Tensor box_xyxy_to_cxcywh(const at::Tensor& boxes);
// Pairwise IoU (N x M) and generalised IoU (DETR box_ops).
at::Tensor box_iou(const at::Tensor& a, const at::Tensor& b);
at::Tensor generalized_box_iou(const at::Tensor& a, const at::Tensor& b);
// Tight boxes around the true pixels of masks (N, H, W).
at::Tensor masks_to_boxes(const at::Tensor& masks);

// Element-wise (aligned) IoU losses, mean-reduced.
at::Tensor iou_loss(const at::Tensor& pred, const at::Tensor& target, double eps = 1e-6);
at::Tensor giou_loss(const at::Tensor& pred, const at::Tensor& target, double eps = 1e-7);
at::Tensor diou_loss(const at::Tensor& pred, const at::Tensor& target, double eps = 1e-7);
at::Tensor ciou_loss(const at::Tensor& pred, const at::Tensor& target, double eps = 1e-7);

at::Tensor sigmoid_focal_loss(const at::Tensor& logits, const at::Tensor& target, double gamma = 2.0, double alpha = 0.25);
at::Tensor smooth_l1_loss(const at::Tensor& pred, const at::Tensor& target, double beta = 1.0);
at::Tensor l1_loss(const at::Tensor& pred, const at::Tensor& target);
at::Tensor balanced_l1_loss(const at::Tensor& pred, const at::Tensor& target, double alpha = 0.5, double gamma = 1.5, double beta = 1.0);
at::Tensor charbonnier_loss(const at::Tensor& pred, const at::Tensor& target, double eps = 1e-12);
at::Tensor label_smooth_celoss(const at::Tensor& logits, const at::Tensor& labels, double smoothing = 0.1);
at::Tensor weight_reduce_loss(const at::Tensor& loss, const at::Tensor& weight, double avg_factor = 0.0);

at::Tensor sequence_mask(const at::Tensor& lengths, std::int64_t max_len);
at::Tensor make_positions(const at::Tensor& tokens, std::int64_t padding_idx);
at::Tensor squash(const at::Tensor& vectors, double eps = 1e-9);
at::Tensor dec2bin(const at::Tensor& x, std::int64_t bits);

}  // namespace opbench::samples
