#pragma once
// MMDetection's bucketing box coder (SABL, "Side-Aware Boundary Localization"): each side of a
// proposal is split into buckets; a box is a bucket per side plus an offset inside it.

#include <ATen/ATen.h>

#include <cstdint>

namespace opbench::samples {

// The proposal's sides' bucket centres. `proposals` (N, 4) are rescaled by `scale_factor` about
// their centres first; `num_buckets` buckets across the box, ceil(num_buckets / 2) a side.
struct Buckets {
  at::Tensor width, height;            // (N): one bucket's width and height
  at::Tensor left, right, top, bottom; // (N, side): the bucket centres, outermost first
};
Buckets generate_buckets(const at::Tensor& proposals, std::int64_t num_buckets,
                         double scale_factor = 1.0);

// Encodes `gt` against `proposals` (both (N, 4)): offsets (N, 4 side), their weights (the
// offset_topk nearest buckets a side, those past offset_upperbound not counted), one-hot bucket
// labels (N, 4 side) and the classification weights (the nearest bucket's neighbours ignored).
struct BucketTargets {
  at::Tensor offsets, offset_weights, labels, label_weights;
};
BucketTargets bbox2bucket(const at::Tensor& proposals, const at::Tensor& gt,
                          std::int64_t num_buckets, double scale_factor,
                          std::int64_t offset_topk = 2, double offset_upperbound = 1.0,
                          bool cls_ignore_neighbor = true);

// Decodes per-side bucket scores and offsets ((N, 4 side) each) into boxes (N, 4) and the
// localisation confidence (N): the best bucket's score, plus the second's where it is a neighbour.
struct DecodedBuckets {
  at::Tensor boxes, confidence;
};
DecodedBuckets bucket2bbox(const at::Tensor& proposals, const at::Tensor& cls_preds,
                           const at::Tensor& offset_preds, std::int64_t num_buckets,
                           double scale_factor = 1.0, double max_h = 0, double max_w = 0);

} // namespace opbench::samples
