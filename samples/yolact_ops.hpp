#pragma once
// YOLACT's box utilities and mask losses (dbolya/yolact, layers/box_utils.py and
// layers/modules/multibox_loss.py at 57b8f2d): SSD-style box encoding against priors given as
// (cx, cy, w, h) with variances 0.1 / 0.2, mask cropping to boxes, and the mask-coefficient
// diversity loss.

#include <ATen/ATen.h>

namespace opbench::samples {

// Point-form matched boxes (x1, y1, x2, y2) against priors (cx, cy, w, h) -> offsets (N, 4).
at::Tensor yolact_encode(const at::Tensor& matched, const at::Tensor& priors);
// The inverse: offsets against priors -> point-form boxes (N, 4).
at::Tensor yolact_decode(const at::Tensor& loc, const at::Tensor& priors);
// masks (h, w, n) kept inside each of the n boxes (relative coordinates in [0, 1]), `padding`
// pixels wider; zero elsewhere.
at::Tensor yolact_crop(const at::Tensor& masks, const at::Tensor& boxes, std::int64_t padding = 1);
// Coefficients (n, k) of n positive detections with their instance ids (n): cosine distance
// between coefficients of the same instance, cosine similarity (both rescaled to [0, 1])
// between different ones, summed and divided by n.
at::Tensor coeff_diversity_loss(const at::Tensor& coeffs, const at::Tensor& instance_t);

at::Tensor intersect(const at::Tensor& a, const at::Tensor& b);
at::Tensor jaccard(const at::Tensor& a, const at::Tensor& b);
at::Tensor index2d(const at::Tensor& src, const at::Tensor& idx);
std::vector<at::Tensor> sanitize_coordinates(const at::Tensor& x1, const at::Tensor& x2,
                                             double img_size, double padding = 0.0);

} // namespace opbench::samples
