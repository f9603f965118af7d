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

}  // namespace opbench::samples
