#pragma once
// Losses of semantic segmentation and its distillation, as LongTail-Bench times them: SenseTime's
// segmentbase2 (SEGMENTBASE2 in the catalogue, a private repository) and the softgauss family
// (UNKNOWN). The catalogue gives no public source; these follow LongTail-Bench's own copies of
// the originals (DeepLink-org/DLOP-Bench, bench/samples/long_tail/<name>/torch_impl.py), with
// their defaults. Labels are class indices (B, H, W), 255 ignored; scores and features are
// (B, C, H, W).

#include <ATen/ATen.h>

namespace opbench::samples {

// The ignored label of segmentation maps.
inline constexpr std::int64_t k_ignore_label = 255;

// WBCELoss: binary cross entropy of edge logits (B, 1, H, W) against the edge labels (B, H, W)
// (255 counts as 0), the edges weighted by beta = 1 - (the batch's share of edge pixels) and the
// rest by 1 - beta; the mean, times `loss_weight`.
at::Tensor edge_wbce_loss(const at::Tensor& logits, const at::Tensor& labels,
                          double loss_weight = 10.0);

// GradientLoss (distillation of boundaries): Sobel gradients of student and teacher scores,
// depthwise (the kernels are (C, 1, 3, 3) inputs: the module's fixed weights), each normalised by
// its magnitude; the mean squared difference over the pixels whose label is not 255, x plus y.
// No valid pixel: 0 (a Python `if` on torch.any, a host sync).
at::Tensor gradient_loss(const at::Tensor& student, const at::Tensor& teacher,
                         const at::Tensor& labels, const at::Tensor& sobel_x,
                         const at::Tensor& sobel_y, double loss_weight = 1.0);
// The Sobel kernels GradientLoss convolves with, for `channels` channels: (channels, 1, 3, 3).
at::Tensor sobel_kernel_x(std::int64_t channels, const at::TensorOptions& options);
at::Tensor sobel_kernel_y(std::int64_t channels, const at::TensorOptions& options);

// SmoothLoss: the forward differences of the class probabilities (softmax of `logits`, padded by
// replication), weighted by exp(-beta * e), e the number of edge pixels (label 1) in each pixel's
// k x k window, capped at m; mean x plus mean y, times `loss_weight`. (The edge logits' sigmoid is
// computed and unused, as in the original with its default weight type "gs".)
at::Tensor edge_smooth_loss(const at::Tensor& logits, const at::Tensor& edge_logits,
                            const at::Tensor& edge_labels, double beta = 10.0, std::int64_t k = 3,
                            double m = 3.0, double loss_weight = 10.0);

// CriterionIFV (intra-class feature variation distillation, Wang et al. 2020): each pixel's cosine
// similarity to its class's mean feature (labels (B, 1, h, w), resized to the features), for the
// student and the (detached) teacher; the mean squared difference over the pixels not labelled 255.
at::Tensor ifv_loss(const at::Tensor& student, const at::Tensor& teacher, const at::Tensor& labels,
                    std::int64_t classes, double loss_weight = 1.0);

// InterRegion: the class centres (mean feature of each class's pixels, labels (B, 1, h, w)) of
// student and teacher, their class-to-class cosine similarities (B, classes, classes); the mean
// squared difference, times `loss_weight`.
at::Tensor inter_region_loss(const at::Tensor& student, const at::Tensor& teacher,
                             const at::Tensor& labels, std::int64_t classes,
                             double loss_weight = 1.0);

// KNOWLEDGEGAPLoss: the teacher's KL term per pixel, p_t (log p_t - log p_s), weighted by how much
// more probability the teacher gives the true class than the student, max(p_t[y] - p_s[y], 0);
// summed over classes, the mean over the pixels not labelled 255 (a boolean mask, a host sync).
at::Tensor knowledge_gap_loss(const at::Tensor& scores, const at::Tensor& labels,
                              const at::Tensor& teacher_scores, double temperature = 1.0,
                              double loss_weight = 1.0);

// SCELoss (soft cross entropy of distillation): the teacher's probabilities where its arg max is
// the label, elsewhere a blend of them and the smoothed one-hot label (0.95 / 0.05 over the
// classes) by the teacher's confidence (top-1 minus top-2); the KL term against the student's
// log-probabilities, summed over classes, the mean over the pixels not labelled 255.
at::Tensor sce_loss(const at::Tensor& scores, const at::Tensor& labels,
                    const at::Tensor& teacher_scores, double temperature = 1.0,
                    double loss_weight = 1.0);

// get_softgauss_loss_weight: per image, on the host (the original uses OpenCV), a weight per
// pixel of 1 + exp(-d^2 / (2 sigma^2)), d the Euclidean distance to the nearest boundary pixel of
// the label map or misclassified pixel (arg max of `scores` not the label); 0 where the label is
// 255; normalised to sum 1. A float64 CPU tensor (B, H, W), as the original's numpy array.
// The original finds boundaries with cv2.Canny(labels, 1, 1); here a boundary pixel is one whose
// right or lower neighbour has another label (Canny's thinned edge of a step between labels).
// Its distance transform (cv2.DIST_MASK_PRECISE) is exact, as here.
at::Tensor softgauss_loss_weight(const at::Tensor& scores, const at::Tensor& labels,
                                 double sigma = 7.0);

// The exact squared Euclidean distance of every pixel of a (H, W) boolean map to its nearest true
// pixel, on the host (float64, CPU): Felzenszwalb and Huttenlocher's separable transform, what
// cv2.distanceTransform(DIST_L2, DIST_MASK_PRECISE) computes. No true pixel: 1e12 everywhere.
at::Tensor squared_distance_transform(const at::Tensor& sites);

// SoftGBWLoss: per-pixel cross entropy (255 ignored) weighted by softgauss_loss_weight, summed
// per image, the mean over images.
at::Tensor softgbw_loss(const at::Tensor& scores, const at::Tensor& labels, double sigma = 7.0,
                        double loss_weight = 1.0);

// MarginLoss: softgbw_loss plus a margin on the logits: where the arg max is the label, the mean
// of max(0, margin - (top-1 logit - top-2 logit)), the top two found by an argsort on the host.
at::Tensor margin_loss(const at::Tensor& scores, const at::Tensor& labels, double margin = 0.85,
                       double sigma = 7.0, double loss_weight = 1.0);

at::Tensor aggregate(const at::Tensor& assign, const at::Tensor& x, const at::Tensor& codewords);
at::Tensor scaled_l2(const at::Tensor& x, const at::Tensor& codewords, const at::Tensor& scale);

} // namespace opbench::samples
