#pragma once
// Detection and dense-prediction losses of the long-tail samples, as plain functions of tensors
// (written from each sample's source at its url). Boxes are (x1, y1, x2, y2).

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

namespace opbench::samples {

// Element-wise (aligned) IoU losses, mean-reduced.
at::Tensor iou_loss(const at::Tensor& pred, const at::Tensor& target, double eps = 1e-6);
at::Tensor giou_loss(const at::Tensor& pred, const at::Tensor& target, double eps = 1e-7);
at::Tensor diou_loss(const at::Tensor& pred, const at::Tensor& target, double eps = 1e-7);
at::Tensor ciou_loss(const at::Tensor& pred, const at::Tensor& target, double eps = 1e-7);

at::Tensor sigmoid_focal_loss(const at::Tensor& logits, const at::Tensor& target,
                              double gamma = 2.0, double alpha = 0.25);
at::Tensor smooth_l1_loss(const at::Tensor& pred, const at::Tensor& target, double beta = 1.0);
at::Tensor l1_loss(const at::Tensor& pred, const at::Tensor& target);
at::Tensor balanced_l1_loss(const at::Tensor& pred, const at::Tensor& target, double alpha = 0.5,
                            double gamma = 1.5, double beta = 1.0);
at::Tensor charbonnier_loss(const at::Tensor& pred, const at::Tensor& target, double eps = 1e-12);
// Label-smoothing cross entropy as LongTail-Bench's LabelSmoothCELoss: every class gets
// smoothing / num_classes, the label 1 - smoothing + that (num_classes is the module's, 6, whatever
// the scores' width); minus the sum of log-softmax times it, over the rows.
at::Tensor label_smooth_celoss(const at::Tensor& logits, const at::Tensor& labels,
                               double smoothing = 0.1, std::int64_t num_classes = 6);
// MMSegmentation's weight_reduce_loss: loss * weight reduced by `reduction` ("mean", "sum" or
// "none"); with avg_factor > 0, "mean" is the sum over avg_factor ("sum" then throws
// std::invalid_argument, as the original raises).
at::Tensor weight_reduce_loss(const at::Tensor& loss, const at::Tensor& weight,
                              const std::string& reduction = "mean", double avg_factor = 0.0);
// Dice loss of scores (N, C, ...) against labels (N, ...) or targets (N, C, ...): softmax, labels
// one-hot; per image and class, over the pixels, (2 sum(p t) + smooth) / (sum(p^2) + sum(t^2) -
// sum(p t) + smooth) (squared, Jaccard's denominator); 1 - its mean.
at::Tensor dice_loss(const at::Tensor& logits, const at::Tensor& target, double smooth = 1e-5);
// CornerNet's associative-embedding loss (Law and Deng 2018; kp_utils.py's _ae_loss), split in
// its two halves as LongTail-Bench times them: the top-left and bottom-right tags (B, objects[,
// 1]) of each image's objects and a mask (B, objects) of the real ones. An object's tag is the
// mean of its corners'. Pull: each corner's squared distance to it over the image's object count,
// summed over the masked objects. Push: relu(1 - |e_i - e_j|) - 1 / n, over n (n - 1), summed over
// the pairs of masked objects (a pair with itself included, as in the original).
at::Tensor associative_pull_loss(const at::Tensor& tl, const at::Tensor& br,
                                 const at::Tensor& mask);
at::Tensor associative_push_loss(const at::Tensor& tl, const at::Tensor& br,
                                 const at::Tensor& mask);
// The Gaussian focal loss of CornerNet and CenterNet on sigmoid logits, as POD's
// GaussianSigmoidFocalLoss: targets in [0, 1] (Gaussian bumps, 1 at the centres), p clamped to
// [1e-4, 1 - 1e-4]; log(p) (1-p)^gamma at the centres and log(1-p) p^gamma (1-t)^beta elsewhere,
// picked with boolean masks; minus their sum over the number of centres (no centre: minus the
// negatives' sum).
at::Tensor gaussian_sigmoid_focal_loss(const at::Tensor& logits, const at::Tensor& target,
                                       double gamma = 2.0, double beta = 4.0);
// MMDetection's GHM-R: authentic smooth L1 with gradient-density weights over `bins` bins;
// elements whose label_weight is 0 are not counted.
at::Tensor ghmr_loss(const at::Tensor& pred, const at::Tensor& target,
                     const at::Tensor& label_weight, double mu = 0.02, std::int64_t bins = 10);
// PISA's classification-aware regression loss: smooth L1 of the positives (labels in [0,
// num_classes)) weighted by (bias + (1 - bias) * score)^k, normalised to the positives' count.
at::Tensor carl_loss(const at::Tensor& cls_score, const at::Tensor& labels,
                     const at::Tensor& bbox_pred, const at::Tensor& bbox_targets,
                     std::int64_t num_classes = 80, double k = 1.0, double bias = 0.2);
at::Tensor bounded_iou_loss(const at::Tensor& pred, const at::Tensor& target, double beta = 0.2,
                            double eps = 1e-3);
at::Tensor softmax_focal_loss(const at::Tensor& logits, const at::Tensor& target,
                              double gamma = 2.0);
at::Tensor gaussian_focal_loss(const at::Tensor& pred, const at::Tensor& target, double alpha = 2.0,
                               double gamma = 4.0, double eps = 1e-12);
at::Tensor varifocal_loss(const at::Tensor& logits, const at::Tensor& target, double alpha = 0.75,
                          double gamma = 2.0);
at::Tensor l2_loss(const at::Tensor& pred, const at::Tensor& target);
at::Tensor mmdetection_accuracy(const at::Tensor& pred, const at::Tensor& target,
                                const std::vector<std::int64_t>& topk);

} // namespace opbench::samples
