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

// points (N, 2) and boxes (N, 4) -> (left, top, right, bottom) distances (N, 4), clamped to
// [0, max_distance - eps] when max_distance > 0 (MMDetection's bbox2distance).
at::Tensor bbox2offset(const at::Tensor& points, const at::Tensor& boxes, double max_distance = 0, double eps = 0.1);
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
// Dice loss of scores (N, C, ...) against labels (N, ...) or targets (N, C, ...): softmax, labels
// one-hot; per image and class, over the pixels, (2 sum(p t) + smooth) / (sum(p^2) + sum(t^2) -
// sum(p t) + smooth) (squared, Jaccard's denominator); 1 - its mean.
at::Tensor dice_loss(const at::Tensor& logits, const at::Tensor& target, double smooth = 1e-5);
// CornerNet's associative embedding (Law and Deng 2018), as MMDetection's ae_loss_per_image:
// embedding maps (B, M, positions) and, per image, each object's top-left and bottom-right
// corner positions (B, objects, 2) on the host. An object's embedding is the mean of its two
// corners'. Pull: the corners' squared distance to their object's embedding, over the objects;
// push: relu(1 - |e_i - e_j| summed over the M dimensions) over ordered pairs of objects.
// Summed over the images; an image with no object (or one, for push) adds 0.
at::Tensor associative_pull_loss(const at::Tensor& tl, const at::Tensor& br, const at::Tensor& corners);
at::Tensor associative_push_loss(const at::Tensor& tl, const at::Tensor& br, const at::Tensor& corners);
// The Gaussian focal loss of CornerNet and CenterNet on sigmoid logits: targets in [0, 1] (Gaussian
// bumps, 1 at the centres); -(1-p)^alpha log p at targets of 1, -(1-t)^gamma p^alpha log(1-p)
// elsewhere; summed over the number of centres (at least 1).
at::Tensor gaussian_sigmoid_focal_loss(const at::Tensor& logits, const at::Tensor& target, double alpha = 2.0,
                                       double gamma = 4.0);
// MMDetection's GHM-R: authentic smooth L1 with gradient-density weights over `bins` bins;
// elements whose label_weight is 0 are not counted.
at::Tensor ghmr_loss(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& label_weight,
                     double mu = 0.02, std::int64_t bins = 10);
// PISA's classification-aware regression loss: smooth L1 of the positives (labels in [0,
// num_classes)) weighted by (bias + (1 - bias) * score)^k, normalised to the positives' count.
at::Tensor carl_loss(const at::Tensor& cls_score, const at::Tensor& labels, const at::Tensor& bbox_pred,
                     const at::Tensor& bbox_targets, std::int64_t num_classes = 80, double k = 1.0,
                     double bias = 0.2);

at::Tensor sequence_mask(const at::Tensor& lengths, std::int64_t max_len);
at::Tensor make_positions(const at::Tensor& tokens, std::int64_t padding_idx);
at::Tensor squash(const at::Tensor& vectors, double eps = 1e-9);
at::Tensor dec2bin(const at::Tensor& x, std::int64_t bits);

}  // namespace opbench::samples
