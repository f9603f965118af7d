#pragma once
// Box coders, conversions and pairwise overlaps of the long-tail samples, as plain functions of
// tensors (written from each sample's source at its url). Boxes are (x1, y1, x2, y2).

#include <ATen/ATen.h>

#include <array>
#include <vector>

namespace opbench::samples {

// Box coders (MMDetection DeltaXYWHBBoxCoder with means 0, stds 1).
at::Tensor bbox2delta(const at::Tensor& proposals, const at::Tensor& gt);
at::Tensor delta2bbox(const at::Tensor& rois, const at::Tensor& deltas,
                      double max_ratio = 4.135166556742356);
// TBLR coder: distances of the box sides from the prior's centre, normalised by its size.
at::Tensor bbox2tblr(const at::Tensor& priors, const at::Tensor& gts, double normalizer = 4.0);
at::Tensor tblr2bbox(const at::Tensor& priors, const at::Tensor& tblr, double normalizer = 4.0);
// YOLO coder: centre offsets in stride units (sigmoid space), log size ratios.
at::Tensor yolo_encode(const at::Tensor& bboxes, const at::Tensor& gt, const at::Tensor& stride,
                       double eps = 1e-6);
at::Tensor yolo_decode(const at::Tensor& bboxes, const at::Tensor& pred, const at::Tensor& stride);

// Detectron's box regression with the legacy + 1 (bbox_transform): boxes and their ground
// truths (N, 4) -> (dx, dy, dw, dh) (N, 4) times `weights`; offset2bbox, its inverse
// (bbox_transform_inv): boxes (N, 4) and offsets (N, 4 K) -> boxes (N, 4 K), dw and dh clamped
// at log(1000 / 16).
at::Tensor bbox2offset(const at::Tensor& boxes, const at::Tensor& gt_boxes,
                       const std::array<double, 4>& weights = {1.0, 1.0, 1.0, 1.0});
at::Tensor offset2bbox(const at::Tensor& boxes, const at::Tensor& offsets,
                       const std::array<double, 4>& weights = {1.0, 1.0, 1.0, 1.0});
at::Tensor box_area(const at::Tensor& boxes);
at::Tensor box_cxcywh_to_xyxy(const at::Tensor& boxes);
at::Tensor box_xyxy_to_cxcywh(const at::Tensor& boxes);
// Pairwise IoU (N x M) and generalised IoU (DETR box_ops).
at::Tensor box_iou(const at::Tensor& a, const at::Tensor& b);
at::Tensor generalized_box_iou(const at::Tensor& a, const at::Tensor& b);
// Tight boxes around the true pixels of masks (N, H, W).
at::Tensor masks_to_boxes(const at::Tensor& masks);
at::Tensor bbox2roi(const std::vector<at::Tensor>& boxes_per_image);
at::Tensor legacy_bbox2delta(const at::Tensor& proposals, const at::Tensor& gt);
at::Tensor legacy_delta2bbox(const at::Tensor& rois, const at::Tensor& deltas);

} // namespace opbench::samples
