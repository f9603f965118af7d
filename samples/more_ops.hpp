#pragma once
// More long-tail sample math (see sample_ops.hpp): detection assigners and targets, DETR heads,
// pose / action / segmentation losses, sequence decoding, recommendation layers, fused blocks.

#include <ATen/ATen.h>

#include <vector>

namespace opbench::samples {

at::Tensor aggregate(const at::Tensor& assign, const at::Tensor& x, const at::Tensor& codewords);
at::Tensor scaled_l2(const at::Tensor& x, const at::Tensor& codewords, const at::Tensor& scale);
// MaxIoUAssigner: overlaps (gts, boxes) -> assigned gt index + 1, 0 negative, -1 ignored.
at::Tensor assign_wrt_overlaps(const at::Tensor& overlaps, double pos_thr = 0.5, double neg_thr = 0.4, double min_pos_iou = 0.0);
at::Tensor bbox2roi(const std::vector<at::Tensor>& boxes_per_image);
at::Tensor bmn_loss(const at::Tensor& pred, const at::Tensor& gt, double threshold = 0.5, double eps = 1e-5);
at::Tensor bounded_iou_loss(const at::Tensor& pred, const at::Tensor& target, double beta = 0.2, double eps = 1e-3);
at::Tensor collate_tokens(const std::vector<at::Tensor>& values, std::int64_t pad_idx);
at::Tensor compute_locations(std::int64_t h, std::int64_t w, std::int64_t stride,
                             const at::TensorOptions& options = {});
at::Tensor detr_loss_cardinality(const at::Tensor& logits, const at::Tensor& target_lengths);
std::vector<at::Tensor> detr_postprocess(const at::Tensor& logits, const at::Tensor& boxes, const at::Tensor& sizes);
at::Tensor factorization_machine(const at::Tensor& embeddings);
at::Tensor softmax_focal_loss(const at::Tensor& logits, const at::Tensor& target, double gamma = 2.0);
at::Tensor gaussian_focal_loss(const at::Tensor& pred, const at::Tensor& target, double alpha = 2.0, double gamma = 4.0, double eps = 1e-12);
at::Tensor gen_base_anchors(double base_size, const at::Tensor& ratios, const at::Tensor& scales);
std::vector<at::Tensor> greedy_decoder(const at::Tensor& output, std::int64_t blank);
at::Tensor index2d(const at::Tensor& src, const at::Tensor& idx);
at::Tensor intersect(const at::Tensor& a, const at::Tensor& b);
at::Tensor jaccard(const at::Tensor& a, const at::Tensor& b);
at::Tensor joints_mse_loss(const at::Tensor& output, const at::Tensor& target, const at::Tensor& weight);
at::Tensor l2_loss(const at::Tensor& pred, const at::Tensor& target);
at::Tensor legacy_bbox2delta(const at::Tensor& proposals, const at::Tensor& gt);
at::Tensor legacy_delta2bbox(const at::Tensor& rois, const at::Tensor& deltas);
at::Tensor mmdetection_accuracy(const at::Tensor& pred, const at::Tensor& target, const std::vector<std::int64_t>& topk);
at::Tensor partialconv2d(const at::Tensor& input, const at::Tensor& mask, const at::Tensor& weight, const at::Tensor& bias);
at::Tensor position_embedding_learned(const at::Tensor& x, const at::Tensor& row_embed, const at::Tensor& col_embed);
at::Tensor position_embedding_sine(const at::Tensor& mask, std::int64_t num_pos_feats = 64, double temperature = 10000.0);
std::vector<at::Tensor> random_sampler(const at::Tensor& assigned, std::int64_t num, double pos_fraction);
std::vector<at::Tensor> sanitize_coordinates(const at::Tensor& x1, const at::Tensor& x2, double img_size, double padding = 0.0);
at::Tensor smooth_step(const at::Tensor& x, double gamma = 1.0);
at::Tensor split_heads_qkv(const at::Tensor& x, std::int64_t heads);
at::Tensor valid_flags(std::int64_t h, std::int64_t w, std::int64_t valid_h, std::int64_t valid_w, std::int64_t num_base_anchors,
                       const at::TensorOptions& options = {});
at::Tensor varifocal_loss(const at::Tensor& logits, const at::Tensor& target, double alpha = 0.75, double gamma = 2.0);
at::Tensor word2vec_loss(const at::Tensor& input, const at::Tensor& true_word, const at::Tensor& negatives);
// Fused patterns of the MXNet operator-benchmark design.
at::Tensor conv_relu(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b);
at::Tensor conv_bn(const at::Tensor& x, const at::Tensor& w, const at::Tensor& gamma, const at::Tensor& beta,
                   const at::Tensor& mean, const at::Tensor& var);
at::Tensor linear_gelu(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b);

}  // namespace opbench::samples
