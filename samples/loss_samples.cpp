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

at::Tensor dice_loss(const at::Tensor& logits, const at::Tensor& target, double smooth) {
  const auto pred = logits.softmax(1);
  auto truth = target.dim() == pred.dim() ? target : target.unsqueeze(1);
  if (truth.size(1) != pred.size(1)) truth = at::zeros_like(pred).scatter_(1, truth, 1);  // labels: one-hot
  std::vector<std::int64_t> spatial;
  for (std::int64_t d = 2; d < pred.dim(); ++d) spatial.push_back(d);
  const auto intersection = (truth * pred).sum(spatial);
  // Squared terms, and the Jaccard form of the denominator (minus the intersection).
  const auto denominator = truth.pow(2).sum(spatial) + pred.pow(2).sum(spatial) - intersection;
  return 1.0 - ((2.0 * intersection + smooth) / (denominator + smooth)).mean();
}

namespace {

// Each object's two corner embeddings (objects, M) of one image.
std::pair<at::Tensor, at::Tensor> corner_embeddings(const at::Tensor& tl, const at::Tensor& br, const at::Tensor& corners,
                                                    std::int64_t image) {
  const auto c = corners[image];  // (objects, 2) on the host
  const auto device_index = c.to(tl.device());
  return {tl[image].index_select(1, device_index.select(1, 0)).t(), br[image].index_select(1, device_index.select(1, 1)).t()};
}

}  // namespace

at::Tensor associative_pull_loss(const at::Tensor& tl, const at::Tensor& br, const at::Tensor& corners) {
  at::Tensor total = tl.sum() * 0.0;
  for (std::int64_t image = 0; image < tl.size(0); ++image) {
    const auto objects = corners.size(1);
    if (objects == 0) continue;
    const auto [a, b] = corner_embeddings(tl, br, corners, image);
    const auto mean = (a + b) / 2.0;
    total = total + ((a - mean).pow(2) + (b - mean).pow(2)).sum() / static_cast<double>(objects);
  }
  return total;
}

at::Tensor associative_push_loss(const at::Tensor& tl, const at::Tensor& br, const at::Tensor& corners) {
  at::Tensor total = tl.sum() * 0.0;
  for (std::int64_t image = 0; image < tl.size(0); ++image) {
    const auto n = corners.size(1);
    if (n < 2) continue;
    const auto [a, b] = corner_embeddings(tl, br, corners, image);
    const auto mean = (a + b) / 2.0;  // (n, M)
    const auto difference = mean.unsqueeze(1) - mean.unsqueeze(0);  // (n, n, M): e_i - e_j
    const auto off_diagonal = 1 - at::eye(n, mean.options());
    const auto margin = off_diagonal * (1.0 - difference.sum(-1).abs());
    total = total + at::relu(margin).sum() / static_cast<double>(n * (n - 1));
  }
  return total;
}

at::Tensor gaussian_sigmoid_focal_loss(const at::Tensor& logits, const at::Tensor& target, double alpha, double gamma) {
  const auto p = logits.sigmoid().clamp(1e-6, 1 - 1e-6);
  const auto centre = target.eq(1);
  const auto positive = -(1 - p).pow(alpha) * p.log();
  const auto negative = -(1 - target).pow(gamma) * p.pow(alpha) * (1 - p).log();
  const auto loss = at::where(centre, positive, negative).sum();
  return loss / centre.sum().clamp_min(1).to(loss.scalar_type());
}

at::Tensor ghmr_loss(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& label_weight, double mu,
                     std::int64_t bins) {
  // Authentic smooth L1 (ASL1) and its gradient length, binned; each bin weighted by how few
  // elements it holds (the gradient harmonizing mechanism).
  const auto diff = pred - target;
  const auto loss = at::sqrt(diff * diff + mu * mu) - mu;
  const auto g = (diff / at::sqrt(mu * mu + diff * diff)).abs().detach();
  auto weights = at::zeros_like(g);
  const auto valid = label_weight > 0;
  const double total = std::max(label_weight.to(at::kFloat).sum().item<double>(), 1.0);
  int used = 0;
  for (std::int64_t i = 0; i < bins; ++i) {
    const double low = static_cast<double>(i) / static_cast<double>(bins);
    const double high = i + 1 == bins ? 1e3 : static_cast<double>(i + 1) / static_cast<double>(bins);
    const auto in_bin = (g >= low).logical_and(g < high).logical_and(valid);
    const auto count = in_bin.sum().item<std::int64_t>();
    if (count > 0) {
      ++used;
      weights.masked_fill_(in_bin, total / static_cast<double>(count));
    }
  }
  if (used > 0) weights /= used;
  return (loss * weights).sum() / total;
}

at::Tensor carl_loss(const at::Tensor& cls_score, const at::Tensor& labels, const at::Tensor& bbox_pred,
                     const at::Tensor& bbox_targets, std::int64_t num_classes, double k, double bias) {
  const auto positive = labels.ge(0).logical_and(labels.lt(num_classes)).nonzero().squeeze(1);
  if (positive.numel() == 0) return cls_score.sum().unsqueeze(0) * 0.0;
  const auto pos_labels = labels.index({positive});
  const auto pos_score = cls_score.softmax(-1).index({positive, pos_labels});
  auto carl_weights = (bias + (1 - bias) * pos_score).pow(k);
  // Normalised so that the weights sum to the number of positives.
  carl_weights = carl_weights * (static_cast<double>(pos_score.size(0)) / carl_weights.sum());
  const auto avg_factor = static_cast<double>(bbox_targets.size(0));
  at::Tensor pos_pred;
  if (bbox_pred.size(-1) > 4) {
    pos_pred = bbox_pred.view({bbox_pred.size(0), -1, 4}).index({positive, pos_labels});
  } else {
    pos_pred = bbox_pred.index({positive});
  }
  // The regression loss, smooth L1 (beta 1) per element, over the average factor.
  const auto diff = (pos_pred - bbox_targets.index({positive})).abs();
  const auto regression = at::where(diff < 1.0, 0.5 * diff * diff, diff - 0.5) / avg_factor;
  return (regression * carl_weights.unsqueeze(1)).sum().unsqueeze(0);
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
  out.back().info.axes = {"boxes"};
  out.push_back({{"giou_loss", {"ViewAttribute", "IfElseBranch", "BuiltInDataStructure"}, "MMDET", "https://github.com/open-mmlab/mmdetection/blob/276b7c300f72ab824c9a1087a0f7a11154e00564/mmdet/models/losses/iou_loss.py#L102", {sizes({1000}), sizes({2000}), sizes({3000})}, true, "loss_samples.cpp"},
                 box_pairs, [](const Tensors& t) { return Tensors{giou_loss(t[0], t[1])}; }});
  out.back().info.axes = {"boxes"};
  out.push_back({{"diou_loss", {"Reduce"}, "MMDET", "https://github.com/open-mmlab/mmdetection/blob/c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/losses/iou_loss.py#L122", {sizes({128}), sizes({64}), sizes({8})}, true, "loss_samples.cpp"},
                 box_pairs, [](const Tensors& t) { return Tensors{diou_loss(t[0], t[1])}; }});
  out.back().info.axes = {"boxes"};
  out.push_back({{"ciou_loss", {"Reduce"}, "MMDET", "https://github.com/open-mmlab/mmdetection/blob/c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/losses/iou_loss.py#L177", {sizes({1000}), sizes({2000}), sizes({3000})}, true, "loss_samples.cpp"},
                 box_pairs, [](const Tensors& t) { return Tensors{ciou_loss(t[0], t[1])}; }});
  out.back().info.axes = {"boxes"};
  out.push_back({{"sigmoid_focal_loss", {"IfElseBranch", "ViewAttribute"}, "MMCLS", "https://github.com/open-mmlab/mmclassification/blob/72cffac7b50a556824907721665e6705fd5045fb/mmcls/models/losses/focal_loss.py#L9", {sizes({3000, 4}), sizes({4000, 4}), sizes({5000, 4})}, true, "loss_samples.cpp"},
                 [](const Json& s, at::Generator& g) {
                   const auto n = n0(s), k = s.at(1).get<std::int64_t>();
                   const auto labels = at::randint(0, k, {n}, g, at::TensorOptions().dtype(at::kLong));
                   return Tensors{at::randn({n, k}, g), at::one_hot(labels, k).to(at::kFloat)};
                 },
                 [](const Tensors& t) { return Tensors{samples::sigmoid_focal_loss(t[0], t[1])}; }});
  out.back().info.axes = {"samples", "classes"};
  out.push_back({{"smooth_l1_loss", {"IfElseBranch", "AdvancedIndexing"}, "MMDET", "https://github.com/open-mmlab/mmdetection/blob/c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/losses/smooth_l1_loss.py#L12", {sizes({3000, 4}), sizes({4000, 4}), sizes({6000, 4})}, true, "loss_samples.cpp"},
                 regression_pair, [](const Tensors& t) { return Tensors{samples::smooth_l1_loss(t[0], t[1])}; }});
  out.back().info.axes = {"rows", "columns"};
  out.push_back({{"l1_loss", {"Reduce", "IfElseBranch"}, "MMDET", "https://github.com/open-mmlab/mmdetection/blob/276b7c300f72ab824c9a1087a0f7a11154e00564/mmdet/models/losses/smooth_l1_loss.py#L37", {sizes({128, 4}), sizes({256, 4}), sizes({512, 4})}, true, "loss_samples.cpp"},
                 regression_pair, [](const Tensors& t) { return Tensors{samples::l1_loss(t[0], t[1])}; }});
  out.back().info.axes = {"rows", "columns"};
  out.push_back({{"balanced_l1_loss", {}, "MMDET", k_losses + "balanced_l1_loss.py#L13", {sizes({128, 4}), sizes({256, 8}), sizes({512, 16})}, true, "loss_samples.cpp"},
                 regression_pair, [](const Tensors& t) { return Tensors{balanced_l1_loss(t[0], t[1])}; }});
  out.back().info.axes = {"rows", "columns"};
  out.push_back({{"charbonnier_loss", {}, "MMEDIT", "https://github.com/open-mmlab/mmediting/blob/ce2a70f1321907d1451a376637cf56be76168a67/mmedit/models/losses/pixelwise_loss.py#L41", {sizes({300, 8}), sizes({600, 16}), sizes({800, 32})}, true, "loss_samples.cpp"},
                 regression_pair, [](const Tensors& t) { return Tensors{charbonnier_loss(t[0], t[1])}; }});
  out.back().info.axes = {"rows", "columns"};
  out.push_back({{"label_smooth_celoss", {"ViewAttribute", "Reduce"}, "UNKNOWN", "", {sizes({3000, 4}), sizes({2000, 2}), sizes({1000, 4})}, true, "loss_samples.cpp"},
                 [](const Json& s, at::Generator& g) {
                   const auto n = n0(s), k = s.at(1).get<std::int64_t>();
                   return Tensors{at::randn({n, k}, g), at::randint(0, k, {n}, g, at::TensorOptions().dtype(at::kLong))};
                 },
                 [](const Tensors& t) { return Tensors{label_smooth_celoss(t[0], t[1])}; }});
  out.back().info.written_from = "the label-smoothing cross entropy of Szegedy et al. 2016 (Inception-v3)";
  out.back().info.axes = {"samples", "classes"};
  out.push_back({{"weight_reduce_loss", {"Reduce", "IfElseBranch"}, "MMSEG", "https://github.com/open-mmlab/mmsegmentation/blob/504965184c3e6bc9ec43af54237129ef21981a5f/mmseg/models/losses/utils.py#L47", {sizes({128, 4}), sizes({64, 4}), sizes({8, 4})}, true, "loss_samples.cpp"},
                 [](const Json& s, at::Generator& g) {
                   const std::vector<std::int64_t> shape{n0(s), s.at(1).get<std::int64_t>()};
                   return Tensors{at::rand(shape, g), at::rand(shape, g)};
                 },
                 [](const Tensors& t) { return Tensors{weight_reduce_loss(t[0], t[1])}; }});
  out.back().info.axes = {"rows", "columns"};
  // (batch, classes, height, width) scores and per-pixel labels.
  out.push_back({{"dice_loss", {"IfElseBranch", "Reduce", "ViewAttribute"}, "UNKNOWN", "",
                  {sizes_case({3, 4, 5, 6}), sizes_case({4, 5, 6, 7}), sizes_case({5, 6, 7, 8})}, false, "loss_samples.cpp"},
                 [](const Json& s, at::Generator& g) {
                   const auto n = size_at(s, 0), k = size_at(s, 1), h = size_at(s, 2), w = size_at(s, 3);
                   return Tensors{at::randn({n, k, h, w}, g), at::randint(0, k, {n, h, w}, g, at::TensorOptions().dtype(at::kLong))};
                 },
                 [](const Tensors& t) { return Tensors{dice_loss(t[0], t[1])}; }});
  out.back().info.written_from =
      "a Dice loss (Milletari et al. 2016, V-Net) in the form LongTail-Bench's own copy times (DeepLink-org/DLOP-Bench, "
      "bench/samples/long_tail/dice_loss/torch_impl.py): softmax, labels one-hot by scatter, per image and class "
      "1 - (2|P.T| + s) / (|P|^2 + |T|^2 - |P.T| + s), s = 1e-5, averaged";
  out.back().info.axes = {"batch", "classes", "height", "width"};
  // (boxes): predictions and targets of a box head, 4 coordinates each, a quarter of them ignored.
  out.push_back({{"ghmr_loss", {"ViewAttribute", "IfElseBranch", "ForLoop"}, "MMDET",
                  "https://github.com/open-mmlab/mmdetection/blob/2294badd86b0bc83e49692187a4639b69f2ec4b8/mmdet/models/losses/ghm_loss.py#L122",
                  {sizes_case({3000}), sizes_case({2000}), sizes_case({4000})}, true, "loss_samples.cpp"},
                 [](const Json& s, at::Generator& g) {
                   const auto n = size_at(s, 0);
                   return Tensors{at::randn({n, 4}, g) * 0.1, at::randn({n, 4}, g) * 0.1,
                                  (at::rand({n, 4}, g) > 0.25).to(at::kFloat)};
                 },
                 [](const Tensors& t) { return Tensors{ghmr_loss(t[0], t[1], t[2])}; }});
  out.back().info.host_sync = "as the original: the weight total and each bin's count are read on the host (.item())";
  out.back().info.axes = {"boxes"};
  // (RoIs, 4): 81 class scores (80 classes and background), class-agnostic boxes; half positive.
  out.push_back({{"carl_loss", {"InputAware", "ViewAttribute", "IfElseBranch", "BuiltInDataStructure", "Reduce", "AdvancedIndexing"},
                  "MMDET",
                  "https://github.com/open-mmlab/mmdetection/blob/bde7b4b7eea9dd6ee91a486c6996b2d68662366d/mmdet/models/losses/pisa_loss.py#L123",
                  {sizes_case({32, 4}), sizes_case({64, 4}), sizes_case({16, 4})}, true, "loss_samples.cpp"},
                 [](const Json& s, at::Generator& g) {
                   const auto n = size_at(s, 0), coords = size_at(s, 1);
                   auto labels = at::randint(0, 80, {n}, g, at::TensorOptions().dtype(at::kLong));
                   labels.masked_fill_(at::rand({n}, g) < 0.5, 80);  // background
                   return Tensors{at::randn({n, 81}, g), labels, at::randn({n, coords}, g), at::randn({n, coords}, g)};
                 },
                 [](const Tensors& t) { return Tensors{carl_loss(t[0], t[1], t[2], t[3])}; }});
  out.back().info.host_sync = "as the original: the positives are found with nonzero (a data-dependent size)";
  out.back().info.axes = {"rois", "coordinates"};
  // (the last image's index, objects an image, embedding positions, embedding dimensions).
  auto corner_inputs = [](const Json& s, at::Generator& g) {
    const auto images = size_at(s, 0) + 1, objects = size_at(s, 1), positions = size_at(s, 2), dims = size_at(s, 3);
    return Tensors{at::randn({images, dims, positions}, g), at::randn({images, dims, positions}, g),
                   at::randint(0, positions, {images, objects, 2}, g, at::TensorOptions().dtype(at::kLong))};
  };
  const char* corners_from =
      "CornerNet's associative embedding (Law and Deng 2018) as MMDetection's ae_loss_per_image (mmdet/models/losses/"
      "ae_loss.py) computes it, embeddings of any dimension";
  out.push_back({{"associative_pull_loss", {"Reduce", "ViewAttribute", "AdvancedIndexing"}, "UNKNOWN", "",
                  {sizes_case({0, 2, 3000, 4}), sizes_case({0, 3, 2000, 2}), sizes_case({0, 3, 6000, 8})}, true, "loss_samples.cpp"},
                 corner_inputs, [](const Tensors& t) { return Tensors{associative_pull_loss(t[0], t[1], t[2])}; }});
  out.back().info.host_inputs = 1;
  out.back().info.written_from = corners_from;
  out.back().info.axes = {"last_image", "objects_per_image", "positions", "embedding_dims"};
  out.push_back({{"associative_push_loss", {"Reduce", "ViewAttribute", "AdvancedIndexing"}, "UNKNOWN", "",
                  {sizes_case({0, 2, 32, 8}), sizes_case({1, 3, 64, 4}), sizes_case({2, 4, 64, 16})}, true, "loss_samples.cpp"},
                 corner_inputs, [](const Tensors& t) { return Tensors{associative_push_loss(t[0], t[1], t[2])}; }});
  out.back().info.host_inputs = 1;
  out.back().info.written_from = corners_from;
  out.back().info.axes = {"last_image", "objects_per_image", "positions", "embedding_dims"};
  // (points, classes): heatmap logits and Gaussian targets, one centre in twenty.
  out.push_back({{"gaussian_sigmoid_focalloss", {"ViewAttribute", "InputAware"}, "POD", "",
                  {sizes_case({300, 4}), sizes_case({400, 4}), sizes_case({200, 4})}, true, "loss_samples.cpp"},
                 [](const Json& s, at::Generator& g) {
                   const auto n = size_at(s, 0), k = size_at(s, 1);
                   auto target = at::rand({n, k}, g) * 0.9;
                   target.masked_fill_(at::rand({n, k}, g) < 0.05, 1.0);
                   return Tensors{at::randn({n, k}, g), target};
                 },
                 [](const Tensors& t) { return Tensors{gaussian_sigmoid_focal_loss(t[0], t[1])}; }});
  out.back().info.written_from =
      "the Gaussian focal loss of CornerNet and CenterNet (penalty-reduced focal loss on Gaussian heatmaps, alpha 2, "
      "gamma 4) on sigmoid logits, normalised by the number of centres";
  out.back().info.axes = {"points", "classes"};
}

}  // namespace opbench::samples
