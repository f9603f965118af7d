#pragma once
// Losses of segmentation and dense prediction, written from the published methods they follow
// (the catalogue names no public source for them: SEGMENTBASE2).

#include <ATen/ATen.h>

namespace opbench::samples {

// Class-balanced binary cross entropy for edge maps (HED, Xie and Tu 2015): logits and 0/1 edge
// targets (B, 1, H, W); per image, edge pixels weighted by the share of non-edge pixels and
// non-edge pixels by the share of edge pixels; summed, over the batch.
at::Tensor edge_wbce_loss(const at::Tensor& logits, const at::Tensor& edges);

// Image-gradient loss: the L1 distance between the horizontal and the vertical finite differences
// of prediction and target (B, C, H, W), averaged; with a mask (B, 1, H, W), over the pixel
// pairs where both pixels are valid.
at::Tensor gradient_loss(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& mask = {});

// The edge-aware smoothness loss of self-supervised depth (Godard et al. 2017, Monodepth2's
// get_smooth_loss): disparity (B, 1, H, W), optionally divided by its mean, its finite
// differences weighted by exp(-|image differences|) (B, 3, H, W), averaged; over `scales`
// scales (each halving both, weighted 1 / 2^scale), summed.
at::Tensor edge_smooth_loss(const at::Tensor& disparity, const at::Tensor& image, std::int64_t scales = 4,
                            bool normalise = true);

// IFVD's intra-class feature variation loss (Wang et al. 2020): per class present in the labels
// (resized to the features), each pixel's cosine similarity to its class's mean feature, for the
// student's and the teacher's features (B, C, H, W); the mean squared difference of the two maps.
at::Tensor ifv_loss(const at::Tensor& student, const at::Tensor& teacher, const at::Tensor& labels,
                    std::int64_t classes);

}  // namespace opbench::samples
