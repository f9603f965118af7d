#pragma once
// Detection building blocks: MMDetection's pairwise overlaps, anchor grid and RoI-to-level
// mapping, the class-offset trick of batched NMS, and DETR's frozen batch norm (written from each
// sample's source at its url).

#include <ATen/ATen.h>

#include <vector>

namespace opbench::samples {

// MMDetection bbox_overlaps, not aligned: boxes1 (M, 4) against boxes2 (N, 4) -> (M, N).
// mode "iou", "iof" (intersection over boxes1's area) or "giou"; unions floored at eps.
at::Tensor bbox_overlaps(const at::Tensor& boxes1, const at::Tensor& boxes2,
                         const std::string& mode = "iou", double eps = 1e-6);
// rois (n, 5) = (batch index, x1, y1, x2, y2) -> FPN level of each: floor(log2(sqrt(area) /
// finest_scale + 1e-6)) in [0, num_levels - 1].
at::Tensor map_roi_levels(const at::Tensor& rois, std::int64_t num_levels = 4,
                          double finest_scale = 56);
// base_anchors (A, 4) shifted to every cell of a feat_h x feat_w grid of `stride` pixels, row
// major, A anchors a cell -> (feat_h * feat_w * A, 4).
at::Tensor single_level_grid_anchors(const at::Tensor& base_anchors, std::int64_t feat_h,
                                     std::int64_t feat_w, std::int64_t stride);
// Boxes offset by class (idxs) times (the largest coordinate + 1), so boxes of different classes
// never overlap and one NMS serves every class; empty boxes stay empty.
at::Tensor boxes_for_nms(const at::Tensor& boxes, const at::Tensor& idxs);
// x (N, C, H, W) normalised with fixed statistics: x * scale + (bias - mean * scale), scale =
// weight / sqrt(var + 1e-5).
at::Tensor frozen_batchnorm2d(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                              const at::Tensor& running_mean, const at::Tensor& running_var);
// MMDetection's BBoxHead._get_target_single: the classification and regression targets of one
// image's sampled RoIs, positives first. Labels (P + N) are the positives' classes, then
// `num_classes` (background); label weights 1; box targets (P + N, 4) the positives' deltas
// (DeltaXYWH with stds 0.1, 0.1, 0.2, 0.2), zero for negatives, with weights 1 for positives.
// POD's MaskPredictor.predict (mask inference pasted into the image): RoIs (R, >= 7) as (image,
// x1, y1, x2, y2, score, class), mask heatmaps (R, classes, h, w) and per image (B, >= 5) its
// (.., .., scale, height, width) on the host. On the host, as the original (numpy and OpenCV):
// per image, each of its RoIs scaled back by the image's scale and truncated to integers; its
// class's heatmap resized bilinearly to the RoI's (x2 - x1 + 1) x (y2 - y1 + 1) (cv2.resize),
// thresholded at `threshold` and pasted at (x1, y1) into a zeroed uint8 image (clipped to the
// image, where numpy would refuse). One mask per RoI, in RoI order; a RoI of no image: undefined.
std::vector<at::Tensor> mask_predictor(const at::Tensor& rois, const at::Tensor& heatmaps,
                                       const at::Tensor& image_info, double threshold = 0.5);
// FCOS's target assignment (Tian et al. 2019, compute_targets_for_locations) for one image:
// locations (L, 2) with their level's size range (L, 2), ground-truth boxes (G, 4) and labels
// (G, 1-based). Each location takes, among the boxes it lies inside whose largest side distance
// falls in its range, the one of least area (with the legacy + 1): its label (0: background) and
// its (left, top, right, bottom) distances (L, 4).
struct FcosTargets {
  at::Tensor labels, distances;
};
FcosTargets fcos_matcher(const at::Tensor& locations, const at::Tensor& size_ranges,
                         const at::Tensor& boxes, const at::Tensor& labels);
struct BoxTargets {
  at::Tensor labels, label_weights, bbox_targets, bbox_weights;
};
BoxTargets get_target_single(const at::Tensor& pos_bboxes, const at::Tensor& neg_bboxes,
                             const at::Tensor& pos_gt_bboxes, const at::Tensor& pos_gt_labels,
                             std::int64_t num_classes = 80, double pos_weight = -1);

// MMDetection v1's expand_target (mmdet/core/bbox/bbox_target.py), LongTail-Bench's bbox_expand:
// for each positive RoI (label > 0), its regression targets and weights (R, 4) copied into the
// four columns of its class, label * 4 onwards, of the zeroed buffers (R, 4 * classes), which it
// fills in place and returns. Finds the positives with nonzero and reads each one's label on the
// host, as the original.
std::vector<at::Tensor> bbox_target_expand(const at::Tensor& bbox_targets,
                                           const at::Tensor& bbox_weights, const at::Tensor& labels,
                                           at::Tensor targets_expand, at::Tensor weights_expand);

// MaxIoUAssigner: overlaps (gts, boxes) -> assigned gt index + 1, 0 negative, -1 ignored.
at::Tensor assign_wrt_overlaps(const at::Tensor& overlaps, double pos_thr = 0.5,
                               double neg_thr = 0.4, double min_pos_iou = 0.0);
std::vector<at::Tensor> random_sampler(const at::Tensor& assigned, std::int64_t num,
                                       double pos_fraction);
at::Tensor compute_locations(std::int64_t h, std::int64_t w, std::int64_t stride,
                             const at::TensorOptions& options = {});
at::Tensor gen_base_anchors(double base_size, const at::Tensor& ratios, const at::Tensor& scales);
at::Tensor valid_flags(std::int64_t h, std::int64_t w, std::int64_t valid_h, std::int64_t valid_w,
                       std::int64_t num_base_anchors, const at::TensorOptions& options = {});

} // namespace opbench::samples
