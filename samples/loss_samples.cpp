// IoU-family, focal, robust-regression and classification losses (MMDetection, MMEditing).
#include <ATen/core/grad_mode.h>

#include <cmath>

#include "registry.hpp"
#include "sample_ops.hpp"

namespace opbench::samples {
namespace {

at::Tensor c(const at::Tensor& t, int64_t i) { return t.select(-1, i); }

// Aligned overlap pieces of pred and target (N, 4).
struct Overlap {
  at::Tensor inter, uni, enclose_lt, enclose_rb;
};

Overlap overlap(const at::Tensor& p, const at::Tensor& t) {
  const auto lt = at::max(p.narrow(-1, 0, 2), t.narrow(-1, 0, 2));
  const auto rb = at::min(p.narrow(-1, 2, 2), t.narrow(-1, 2, 2));
  const auto wh = (rb - lt).clamp_min(0);
  const auto inter = c(wh, 0) * c(wh, 1);
  const auto area_p = (c(p, 2) - c(p, 0)) * (c(p, 3) - c(p, 1));
  const auto area_t = (c(t, 2) - c(t, 0)) * (c(t, 3) - c(t, 1));
  return {inter, area_p + area_t - inter, at::min(p.narrow(-1, 0, 2), t.narrow(-1, 0, 2)),
          at::max(p.narrow(-1, 2, 2), t.narrow(-1, 2, 2))};
}

// Squared distance of the centres over the squared diagonal of the enclosing box.
at::Tensor centre_penalty(const at::Tensor& p, const at::Tensor& t, const Overlap& o, double eps) {
  const auto ew = c(o.enclose_rb, 0) - c(o.enclose_lt, 0), eh = c(o.enclose_rb, 1) - c(o.enclose_lt, 1);
  const auto diag = ew * ew + eh * eh + eps;
  const auto dx = (c(p, 0) + c(p, 2) - c(t, 0) - c(t, 2)) * 0.5;
  const auto dy = (c(p, 1) + c(p, 3) - c(t, 1) - c(t, 3)) * 0.5;
  return (dx * dx + dy * dy) / diag;
}

}  // namespace

at::Tensor iou_loss(const at::Tensor& pred, const at::Tensor& target, double eps) {
  const auto o = overlap(pred, target);
  return -(o.inter / o.uni).clamp_min(eps).log().mean();
}

at::Tensor giou_loss(const at::Tensor& pred, const at::Tensor& target, double eps) {
  const auto o = overlap(pred, target);
  const auto iou = o.inter / (o.uni + eps);
  const auto wh = (o.enclose_rb - o.enclose_lt).clamp_min(0);
  const auto enclose = c(wh, 0) * c(wh, 1) + eps;
  return (1 - (iou - (enclose - o.uni) / enclose)).mean();
}

at::Tensor diou_loss(const at::Tensor& pred, const at::Tensor& target, double eps) {
  const auto o = overlap(pred, target);
  return (1 - o.inter / (o.uni + eps) + centre_penalty(pred, target, o, eps)).mean();
}

at::Tensor ciou_loss(const at::Tensor& pred, const at::Tensor& target, double eps) {
  const auto o = overlap(pred, target);
  const auto iou = o.inter / (o.uni + eps);
  const auto w1 = c(pred, 2) - c(pred, 0), h1 = c(pred, 3) - c(pred, 1) + eps;
  const auto w2 = c(target, 2) - c(target, 0), h2 = c(target, 3) - c(target, 1) + eps;
  const auto v = (4 / (M_PI * M_PI)) * at::pow(at::atan(w2 / h2) - at::atan(w1 / h1), 2);
  at::Tensor alpha;
  {
    at::NoGradGuard no_grad;
    alpha = (iou > 0.5).to(v.scalar_type()) * v / (1 - iou + v + eps);
  }
  return (1 - iou + centre_penalty(pred, target, o, eps) + alpha * v).mean();
}

at::Tensor sigmoid_focal_loss(const at::Tensor& logits, const at::Tensor& target, double gamma, double alpha) {
  const auto p = logits.sigmoid();
  const auto pt = (1 - p) * target + p * (1 - target);
  const auto weight = (alpha * target + (1 - alpha) * (1 - target)) * pt.pow(gamma);
  return (at::binary_cross_entropy_with_logits(logits, target, {}, {}, at::Reduction::None) * weight).mean();
}

at::Tensor smooth_l1_loss(const at::Tensor& pred, const at::Tensor& target, double beta) {
  const auto diff = (pred - target).abs();
  return at::where(diff < beta, 0.5 * diff * diff / beta, diff - 0.5 * beta).mean();
}

at::Tensor l1_loss(const at::Tensor& pred, const at::Tensor& target) { return (pred - target).abs().mean(); }

at::Tensor balanced_l1_loss(const at::Tensor& pred, const at::Tensor& target, double alpha, double gamma, double beta) {
  const auto diff = (pred - target).abs();
  const double b = std::exp(gamma / alpha) - 1;
  const auto small = alpha / b * (b * diff + 1) * at::log(b * diff / beta + 1) - alpha * diff;
  const auto large = gamma * diff + gamma / b - alpha * beta;
  return at::where(diff < beta, small, large).mean();
}

at::Tensor charbonnier_loss(const at::Tensor& pred, const at::Tensor& target, double eps) {
  return at::sqrt((pred - target).pow(2) + eps).mean();
}

at::Tensor label_smooth_celoss(const at::Tensor& logits, const at::Tensor& labels, double smoothing) {
  const int64_t classes = logits.size(-1);
  const auto log_p = logits.log_softmax(-1);
  auto target = at::full_like(log_p, smoothing / static_cast<double>(classes - 1));
  target.scatter_(-1, labels.unsqueeze(-1), 1.0 - smoothing);
  return (-target * log_p).sum(-1).mean();
}

at::Tensor weight_reduce_loss(const at::Tensor& loss, const at::Tensor& weight, double avg_factor) {
  const auto weighted = loss * weight;
  return avg_factor > 0 ? weighted.sum() / avg_factor : weighted.mean();
}

namespace {

const std::string k_losses = "https://github.com/open-mmlab/mmdetection/blob/c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/losses/";

Json sizes(std::initializer_list<std::int64_t> s) { return {{"sizes", std::vector<std::int64_t>(s)}}; }
std::int64_t n0(const Json& j) { return j.at(0).get<std::int64_t>(); }

// Predicted boxes near their targets, so IoU-family losses see overlapping pairs.
Tensors box_pairs(const Json& s, at::Generator& g) {
  const auto target = random_boxes(n0(s), g);
  const auto jitter = at::randn({n0(s), 4}, g) * 2.0;
  auto pred = target + jitter;
  pred = at::cat({pred.narrow(1, 0, 2), at::max(pred.narrow(1, 2, 2), pred.narrow(1, 0, 2) + 1.0)}, 1);
  return {pred, target};
}

Tensors regression_pair(const Json& s, at::Generator& g) {
  const std::vector<std::int64_t> shape{n0(s), s.size() > 1 ? s.at(1).get<std::int64_t>() : 4};
  return {at::randn(shape, g), at::randn(shape, g)};
}

}  // namespace

void register_loss_samples(std::vector<Sample>& out) {
  out.push_back({{"iou_loss", {"ViewAttribute", "IfElseBranch", "Reduce"}, "MMDET", "https://github.com/open-mmlab/mmdetection/blob/276b7c300f72ab824c9a1087a0f7a11154e00564/mmdet/models/losses/iou_loss.py#L16", {sizes({128}), sizes({256}), sizes({512})}, true, "loss_samples.cpp"},
                 box_pairs, [](const Tensors& t) { return Tensors{iou_loss(t[0], t[1])}; }});
  out.push_back({{"giou_loss", {"ViewAttribute", "IfElseBranch", "BuiltInDataStructure"}, "MMDET", "https://github.com/open-mmlab/mmdetection/blob/276b7c300f72ab824c9a1087a0f7a11154e00564/mmdet/models/losses/iou_loss.py#L102", {sizes({1000}), sizes({2000}), sizes({3000})}, true, "loss_samples.cpp"},
                 box_pairs, [](const Tensors& t) { return Tensors{giou_loss(t[0], t[1])}; }});
  out.push_back({{"diou_loss", {"Reduce"}, "MMDET", "https://github.com/open-mmlab/mmdetection/blob/c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/losses/iou_loss.py#L122", {sizes({128}), sizes({64}), sizes({8})}, true, "loss_samples.cpp"},
                 box_pairs, [](const Tensors& t) { return Tensors{diou_loss(t[0], t[1])}; }});
  out.push_back({{"ciou_loss", {"Reduce"}, "MMDET", "https://github.com/open-mmlab/mmdetection/blob/c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/losses/iou_loss.py#L177", {sizes({1000}), sizes({2000}), sizes({3000})}, true, "loss_samples.cpp"},
                 box_pairs, [](const Tensors& t) { return Tensors{ciou_loss(t[0], t[1])}; }});
  out.push_back({{"sigmoid_focal_loss", {"IfElseBranch", "ViewAttribute"}, "MMCLS", "https://github.com/open-mmlab/mmclassification/blob/72cffac7b50a556824907721665e6705fd5045fb/mmcls/models/losses/focal_loss.py#L9", {sizes({3000, 4}), sizes({4000, 4}), sizes({5000, 4})}, true, "loss_samples.cpp"},
                 [](const Json& s, at::Generator& g) {
                   const auto n = n0(s), k = s.at(1).get<std::int64_t>();
                   const auto labels = at::randint(0, k, {n}, g, at::TensorOptions().dtype(at::kLong));
                   return Tensors{at::randn({n, k}, g), at::one_hot(labels, k).to(at::kFloat)};
                 },
                 [](const Tensors& t) { return Tensors{samples::sigmoid_focal_loss(t[0], t[1])}; }});
  out.push_back({{"smooth_l1_loss", {"IfElseBranch", "AdvancedIndexing"}, "MMDET", "https://github.com/open-mmlab/mmdetection/blob/c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/losses/smooth_l1_loss.py#L12", {sizes({3000, 4}), sizes({4000, 4}), sizes({6000, 4})}, true, "loss_samples.cpp"},
                 regression_pair, [](const Tensors& t) { return Tensors{samples::smooth_l1_loss(t[0], t[1])}; }});
  out.push_back({{"l1_loss", {"Reduce", "IfElseBranch"}, "MMDET", "https://github.com/open-mmlab/mmdetection/blob/276b7c300f72ab824c9a1087a0f7a11154e00564/mmdet/models/losses/smooth_l1_loss.py#L37", {sizes({128, 4}), sizes({256, 4}), sizes({512, 4})}, true, "loss_samples.cpp"},
                 regression_pair, [](const Tensors& t) { return Tensors{samples::l1_loss(t[0], t[1])}; }});
  out.push_back({{"balanced_l1_loss", {}, "MMDET", k_losses + "balanced_l1_loss.py#L13", {sizes({128, 4}), sizes({256, 8}), sizes({512, 16})}, true, "loss_samples.cpp"},
                 regression_pair, [](const Tensors& t) { return Tensors{balanced_l1_loss(t[0], t[1])}; }});
  out.push_back({{"charbonnier_loss", {}, "MMEDIT", "https://github.com/open-mmlab/mmediting/blob/ce2a70f1321907d1451a376637cf56be76168a67/mmedit/models/losses/pixelwise_loss.py#L41", {sizes({300, 8}), sizes({600, 16}), sizes({800, 32})}, true, "loss_samples.cpp"},
                 regression_pair, [](const Tensors& t) { return Tensors{charbonnier_loss(t[0], t[1])}; }});
  out.push_back({{"label_smooth_celoss", {"ViewAttribute", "Reduce"}, "UNKNOWN", "", {sizes({3000, 4}), sizes({2000, 2}), sizes({1000, 4})}, true, "loss_samples.cpp"},
                 [](const Json& s, at::Generator& g) {
                   const auto n = n0(s), k = s.at(1).get<std::int64_t>();
                   return Tensors{at::randn({n, k}, g), at::randint(0, k, {n}, g, at::TensorOptions().dtype(at::kLong))};
                 },
                 [](const Tensors& t) { return Tensors{label_smooth_celoss(t[0], t[1])}; }});
  out.push_back({{"weight_reduce_loss", {"Reduce", "IfElseBranch"}, "MMSEG", "https://github.com/open-mmlab/mmsegmentation/blob/504965184c3e6bc9ec43af54237129ef21981a5f/mmseg/models/losses/utils.py#L47", {sizes({128, 4}), sizes({64, 4}), sizes({8, 4})}, true, "loss_samples.cpp"},
                 [](const Json& s, at::Generator& g) {
                   const std::vector<std::int64_t> shape{n0(s), s.at(1).get<std::int64_t>()};
                   return Tensors{at::rand(shape, g), at::rand(shape, g)};
                 },
                 [](const Tensors& t) { return Tensors{weight_reduce_loss(t[0], t[1])}; }});
}

}  // namespace opbench::samples
