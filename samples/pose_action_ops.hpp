#pragma once
// Pose and action training pieces: MMPose's associative-embedding loss and MMAction2's loss
// parsing (written from each sample's source at its url).

#include <ATen/ATen.h>

#include <string>
#include <utility>
#include <vector>

namespace opbench::samples {

// MMPose AELoss ("exp"): tags (batch, K*H*W, 1) and joints (batch, people, K, 2) on the host,
// each joint (index into the K*H*W tags, visible). Per image: pull, the spread of each person's
// visible joints' tags around their mean, over the people; push, exp(-(mean_i - mean_j)^2) over
// pairs of people. Returns (push (batch), pull (batch)); an image with no person gives 0 and 0.
std::pair<at::Tensor, at::Tensor> ae_loss(const at::Tensor& tags, const at::Tensor& joints);

// A face generator's landmark heatmaps (FaceGenerator_Subnet.landmark2heatmap, as LongTail-Bench
// times it): landmarks (N, 2L) as (x, y) pairs in [-1, 1], and the module's grids x_bias and
// y_bias (1, 1, S) (linspace(-1, 1, 256) there). Per landmark the separable map
// exp(-sqrt(|y - y_bias| inv_std + 1e-4)) (S, 1) times exp(-sqrt(|x - x_bias| inv_std + 1e-4))
// (1, S), by a matmul: (N, L, S, S).
at::Tensor landmark2heatmap(const at::Tensor& landmarks, const at::Tensor& x_bias,
                            const at::Tensor& y_bias, double inv_std = 20.0);

// MMAction2's BaseGCN._parse_losses: `losses` named (a name holding "loss" counts), each a tensor
// or a list of tensors; the total of the losses' means, and every value's mean read on the host
// (the log), the total last.
struct NamedLoss {
  std::string name;
  std::vector<at::Tensor> values; // one tensor, or a list
  bool is_list = false;
};
std::pair<at::Tensor, std::vector<double>> parse_losses(const std::vector<NamedLoss>& losses);

at::Tensor bmn_loss(const at::Tensor& pred, const at::Tensor& gt, double threshold = 0.5,
                    double eps = 1e-5);
at::Tensor joints_mse_loss(const at::Tensor& output, const at::Tensor& target,
                           const at::Tensor& weight);

} // namespace opbench::samples
