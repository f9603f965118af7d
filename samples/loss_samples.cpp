// IoU-family, focal, robust-regression and classification losses and accuracy (MMDetection,
// MMClassification, MMEditing, POD, CornerNet).
#include <ATen/core/grad_mode.h>

#include <cmath>
#include <stdexcept>

#include "loss_ops.hpp"
#include "registry.hpp"

namespace opbench::samples {
namespace {

at::Tensor c(const at::Tensor& t, int64_t i) {
  return t.select(-1, i);
}

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
  const auto ew = c(o.enclose_rb, 0) - c(o.enclose_lt, 0),
             eh = c(o.enclose_rb, 1) - c(o.enclose_lt, 1);
  const auto diag = ew * ew + eh * eh + eps;
  const auto dx = (c(p, 0) + c(p, 2) - c(t, 0) - c(t, 2)) * 0.5;
  const auto dy = (c(p, 1) + c(p, 3) - c(t, 1) - c(t, 3)) * 0.5;
  return (dx * dx + dy * dy) / diag;
}

} // namespace

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

at::Tensor sigmoid_focal_loss(const at::Tensor& logits, const at::Tensor& target, double gamma,
                              double alpha) {
  const auto p = logits.sigmoid();
  const auto pt = (1 - p) * target + p * (1 - target);
  const auto weight = (alpha * target + (1 - alpha) * (1 - target)) * pt.pow(gamma);
  return (at::binary_cross_entropy_with_logits(logits, target, {}, {}, at::Reduction::None) *
          weight)
      .mean();
}

at::Tensor smooth_l1_loss(const at::Tensor& pred, const at::Tensor& target, double beta) {
  const auto diff = (pred - target).abs();
  return at::where(diff < beta, 0.5 * diff * diff / beta, diff - 0.5 * beta).mean();
}

at::Tensor l1_loss(const at::Tensor& pred, const at::Tensor& target) {
  return (pred - target).abs().mean();
}

at::Tensor balanced_l1_loss(const at::Tensor& pred, const at::Tensor& target, double alpha,
                            double gamma, double beta) {
  const auto diff = (pred - target).abs();
  const double b = std::exp(gamma / alpha) - 1;
  const auto small = alpha / b * (b * diff + 1) * at::log(b * diff / beta + 1) - alpha * diff;
  const auto large = gamma * diff + gamma / b - alpha * beta;
  return at::where(diff < beta, small, large).mean();
}

at::Tensor charbonnier_loss(const at::Tensor& pred, const at::Tensor& target, double eps) {
  return at::sqrt((pred - target).pow(2) + eps).mean();
}

at::Tensor label_smooth_celoss(const at::Tensor& logits, const at::Tensor& labels, double smoothing,
                               std::int64_t num_classes) {
  const double v = smoothing / static_cast<double>(num_classes);
  auto one_hot = at::zeros_like(logits);
  one_hot.fill_(v);
  one_hot.scatter_(1, labels.to(at::kLong).view({-1, 1}), 1 - smoothing + v);
  return -(logits.log_softmax(1) * one_hot.detach()).sum() / static_cast<double>(logits.size(0));
}

at::Tensor weight_reduce_loss(const at::Tensor& loss, const at::Tensor& weight,
                              const std::string& reduction, double avg_factor) {
  const auto weighted = loss * weight;
  if (avg_factor > 0) {
    if (reduction == "sum")
      throw std::invalid_argument("avg_factor can not be used with reduction=\"sum\"");
    return reduction == "mean" ? weighted.sum() / avg_factor : weighted;
  }
  if (reduction == "mean")
    return weighted.mean();
  if (reduction == "sum")
    return weighted.sum();
  return weighted;
}

at::Tensor dice_loss(const at::Tensor& logits, const at::Tensor& target, double smooth) {
  const auto pred = logits.softmax(1);
  auto truth = target.dim() == pred.dim() ? target : target.unsqueeze(1);
  if (truth.size(1) != pred.size(1))
    truth = at::zeros_like(pred).scatter_(1, truth, 1); // labels: one-hot
  std::vector<std::int64_t> spatial;
  for (std::int64_t d = 2; d < pred.dim(); ++d)
    spatial.push_back(d);
  const auto intersection = (truth * pred).sum(spatial);
  // Squared terms, and the Jaccard form of the denominator (minus the intersection).
  const auto denominator = truth.pow(2).sum(spatial) + pred.pow(2).sum(spatial) - intersection;
  return 1.0 - ((2.0 * intersection + smooth) / (denominator + smooth)).mean();
}

namespace {

// The mean tag of each object, and the per-image object count (B, 1), as _ae_loss begins.
struct Tags {
  at::Tensor tl, br, mean, count;
};
Tags tags_of(const at::Tensor& tl, const at::Tensor& br, const at::Tensor& mask) {
  Tags t;
  t.count = mask.to(tl.scalar_type()).sum(1, /*keepdim=*/true);
  t.tl = tl.dim() == 3 ? tl.squeeze(-1) : tl;
  t.br = br.dim() == 3 ? br.squeeze(-1) : br;
  t.mean = (t.tl + t.br) / 2;
  return t;
}

} // namespace

at::Tensor associative_pull_loss(const at::Tensor& tl, const at::Tensor& br,
                                 const at::Tensor& mask) {
  const Tags t = tags_of(tl, br, mask);
  const auto pull_tl = (t.tl - t.mean).pow(2) / (t.count + 1e-4);
  const auto pull_br = (t.br - t.mean).pow(2) / (t.count + 1e-4);
  return pull_tl.index({mask}).sum() + pull_br.index({mask}).sum();
}

at::Tensor associative_push_loss(const at::Tensor& tl, const at::Tensor& br,
                                 const at::Tensor& mask) {
  const Tags t = tags_of(tl, br, mask);
  const auto valid = mask.to(tl.scalar_type());
  const auto pairs = (valid.unsqueeze(1) + valid.unsqueeze(2)).eq(2);
  const auto n = t.count.unsqueeze(2);
  auto distance = at::relu(1 - (t.mean.unsqueeze(1) - t.mean.unsqueeze(2)).abs());
  distance = (distance - 1 / (n + 1e-4)) / ((n - 1) * n + 1e-4);
  return distance.index({pairs}).sum();
}

at::Tensor gaussian_sigmoid_focal_loss(const at::Tensor& logits, const at::Tensor& target,
                                       double gamma, double beta) {
  const auto pos_inds = target.eq(1);
  const auto neg_inds = target.lt(1);
  const auto neg_weights = (1 - target.index({neg_inds})).pow(beta);
  // The original takes the sigmoid in place on its input; here out of place, so that repeated
  // calls see the same logits.
  const auto p = logits.sigmoid().clamp(1e-4, 1 - 1e-4);
  const auto pos_pred = p.index({pos_inds}), neg_pred = p.index({neg_inds});
  const auto pos_loss = (pos_pred.log() * (1 - pos_pred).pow(gamma)).sum();
  const auto neg_loss = ((1 - neg_pred).log() * neg_pred.pow(gamma) * neg_weights).sum();
  if (pos_pred.numel() == 0)
    return -neg_loss;
  return -(pos_loss + neg_loss) / pos_inds.to(logits.scalar_type()).sum();
}

at::Tensor ghmr_loss(const at::Tensor& pred, const at::Tensor& target,
                     const at::Tensor& label_weight, double mu, std::int64_t bins) {
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
    const double high =
        i + 1 == bins ? 1e3 : static_cast<double>(i + 1) / static_cast<double>(bins);
    const auto in_bin = (g >= low).logical_and(g < high).logical_and(valid);
    const auto count = in_bin.sum().item<std::int64_t>();
    if (count > 0) {
      ++used;
      weights.masked_fill_(in_bin, total / static_cast<double>(count));
    }
  }
  if (used > 0)
    weights /= used;
  return (loss * weights).sum() / total;
}

at::Tensor carl_loss(const at::Tensor& cls_score, const at::Tensor& labels,
                     const at::Tensor& bbox_pred, const at::Tensor& bbox_targets,
                     std::int64_t num_classes, double k, double bias) {
  const auto positive = labels.ge(0).logical_and(labels.lt(num_classes)).nonzero().squeeze(1);
  if (positive.numel() == 0)
    return cls_score.sum().unsqueeze(0) * 0.0;
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

const std::string k_losses = "https://github.com/open-mmlab/mmdetection/blob/"
                             "c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/losses/";

// Predicted boxes near their targets, so IoU-family losses see overlapping pairs.
Tensors box_pairs(const Json& s, at::Generator& g) {
  const auto target = random_boxes(size_at(s, 0), g);
  const auto jitter = at::randn({size_at(s, 0), 4}, g) * 2.0;
  auto pred = target + jitter;
  pred =
      at::cat({pred.narrow(1, 0, 2), at::max(pred.narrow(1, 2, 2), pred.narrow(1, 0, 2) + 1.0)}, 1);
  return {pred, target};
}

Tensors regression_pair(const Json& s, at::Generator& g) {
  const std::vector<std::int64_t> shape{size_at(s, 0),
                                        s.size() > 1 ? s.at(1).get<std::int64_t>() : 4};
  return {at::randn(shape, g), at::randn(shape, g)};
}

} // namespace

at::Tensor bounded_iou_loss(const at::Tensor& pred, const at::Tensor& target, double beta,
                            double eps) {
  const auto pcx = (c(pred, 0) + c(pred, 2)) * 0.5, pcy = (c(pred, 1) + c(pred, 3)) * 0.5;
  const auto pw = c(pred, 2) - c(pred, 0), ph = c(pred, 3) - c(pred, 1);
  at::Tensor tcx, tcy, tw, th;
  {
    at::NoGradGuard no_grad;
    tcx = (c(target, 0) + c(target, 2)) * 0.5;
    tcy = (c(target, 1) + c(target, 3)) * 0.5;
    tw = c(target, 2) - c(target, 0);
    th = c(target, 3) - c(target, 1);
  }
  const auto dx = tcx - pcx, dy = tcy - pcy;
  const auto loss_dx = 1 - at::clamp_min((tw - 2 * dx.abs()) / (tw + 2 * dx.abs() + eps), 0);
  const auto loss_dy = 1 - at::clamp_min((th - 2 * dy.abs()) / (th + 2 * dy.abs() + eps), 0);
  const auto loss_dw = 1 - at::min(tw / (pw + eps), pw / (tw + eps));
  const auto loss_dh = 1 - at::min(th / (ph + eps), ph / (th + eps));
  const auto loss = at::stack({loss_dx, loss_dy, loss_dw, loss_dh}, -1);
  return at::where(loss < beta, 0.5 * loss * loss / beta, loss - 0.5 * beta).mean();
}

at::Tensor softmax_focal_loss(const at::Tensor& logits, const at::Tensor& target, double gamma) {
  const auto ce = at::cross_entropy_loss(logits, target, {}, at::Reduction::None);
  const auto pt = at::exp(-ce);
  return ((1 - pt).pow(gamma) * ce).mean();
}

at::Tensor gaussian_focal_loss(const at::Tensor& pred, const at::Tensor& target, double alpha,
                               double gamma, double eps) {
  const auto pos_weights = target.eq(1).to(pred.scalar_type());
  const auto neg_weights = (1 - target).pow(gamma);
  const auto pos = -(pred + eps).log() * (1 - pred).pow(alpha) * pos_weights;
  const auto neg = -(1 - pred + eps).log() * pred.pow(alpha) * neg_weights;
  return (pos + neg).mean();
}

at::Tensor varifocal_loss(const at::Tensor& logits, const at::Tensor& target, double alpha,
                          double gamma) {
  const auto p = logits.sigmoid();
  const auto pos = (target > 0).to(p.scalar_type());
  const auto weight = target * pos + alpha * (p - target).abs().pow(gamma) * (1 - pos);
  return (at::binary_cross_entropy_with_logits(logits, target, {}, {}, at::Reduction::None) *
          weight)
      .mean();
}

at::Tensor l2_loss(const at::Tensor& pred, const at::Tensor& target) {
  return (pred - target).pow(2).mean();
}

at::Tensor mmdetection_accuracy(const at::Tensor& pred, const at::Tensor& target,
                                const std::vector<std::int64_t>& topk) {
  const int64_t maxk = *std::max_element(topk.begin(), topk.end());
  const auto top = std::get<1>(pred.topk(maxk, 1)).t();
  const auto correct = top.eq(target.view({1, -1}).expand_as(top));
  std::vector<at::Tensor> res;
  for (int64_t k : topk) {
    res.push_back(correct.narrow(0, 0, k).reshape(-1).to(at::kFloat).sum() *
                  (100.0 / static_cast<double>(pred.size(0))));
  }
  return at::stack(res);
}

void register_loss_samples(std::vector<Sample>& out) {
  Family family(out, "loss_samples.cpp");
  // .grad_inputs({0}): the prediction alone requires grad; targets, labels and weights are
  // constants, as in training. Where LongTail-Bench times backward, its args_adaptor says so;
  // where it does not, the original's training code does (its targets come from the assigner).
  family
      .add("iou_loss", {"ViewAttribute", "IfElseBranch", "Reduce"}, "MMDET",
           "https://github.com/open-mmlab/mmdetection/blob/"
           "276b7c300f72ab824c9a1087a0f7a11154e00564/mmdet/models/losses/iou_loss.py#L16")
      .axes({"boxes"})
      .cases({{128}, {256}, {512}})
      .backward()
      .grad_inputs({0})
      .inputs(box_pairs)
      .body([](const Tensors& t) { return Tensors{iou_loss(t[0], t[1])}; });
  family
      .add("giou_loss", {"ViewAttribute", "IfElseBranch", "BuiltInDataStructure"}, "MMDET",
           "https://github.com/open-mmlab/mmdetection/blob/"
           "276b7c300f72ab824c9a1087a0f7a11154e00564/mmdet/models/losses/iou_loss.py#L102")
      .axes({"boxes"})
      .cases({{1000}, {2000}, {3000}})
      .backward()
      .grad_inputs({0})
      .inputs(box_pairs)
      .body([](const Tensors& t) { return Tensors{giou_loss(t[0], t[1])}; });
  family
      .add("diou_loss", {"Reduce"}, "MMDET",
           "https://github.com/open-mmlab/mmdetection/blob/"
           "c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/losses/iou_loss.py#L122")
      .axes({"boxes"})
      .cases({{128}, {64}, {8}})
      .backward()
      .grad_inputs({0})
      .inputs(box_pairs)
      .body([](const Tensors& t) { return Tensors{diou_loss(t[0], t[1])}; });
  family
      .add("ciou_loss", {"Reduce"}, "MMDET",
           "https://github.com/open-mmlab/mmdetection/blob/"
           "c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/losses/iou_loss.py#L177")
      .axes({"boxes"})
      .cases({{1000}, {2000}, {3000}})
      .backward()
      .grad_inputs({0})
      .inputs(box_pairs)
      .body([](const Tensors& t) { return Tensors{ciou_loss(t[0], t[1])}; });
  family
      .add("sigmoid_focal_loss", {"IfElseBranch", "ViewAttribute"}, "MMCLS",
           "https://github.com/open-mmlab/mmclassification/blob/"
           "72cffac7b50a556824907721665e6705fd5045fb/mmcls/models/losses/focal_loss.py#L9")
      .axes({"samples", "classes"})
      .cases({{3000, 4}, {4000, 4}, {5000, 4}})
      .backward()
      .grad_inputs({0})
      .float64_param("gamma", 2.0, 0.0, 10.0)
      .float64_param("alpha", 0.25, 0.0, 1.0)
      .inputs([](const Json& s, at::Generator& g) {
        const auto n = size_at(s, 0), k = s.at(1).get<std::int64_t>();
        const auto labels = at::randint(0, k, {n}, g, at::TensorOptions().dtype(at::kLong));
        return Tensors{at::randn({n, k}, g), at::one_hot(labels, k).to(at::kFloat)};
      })
      .body([](const Params& p) { // the parameters read once, outside the timed calls
        const double gamma = p.float64("gamma");
        const double alpha = p.float64("alpha");
        return Sample::Body([gamma, alpha](const Tensors& t) {
          return Tensors{samples::sigmoid_focal_loss(t[0], t[1], gamma, alpha)};
        });
      });
  family
      .add("smooth_l1_loss", {"IfElseBranch", "AdvancedIndexing"}, "MMDET",
           "https://github.com/open-mmlab/mmdetection/blob/"
           "c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/losses/smooth_l1_loss.py#L12")
      .axes({"rows", "columns"})
      .cases({{3000, 4}, {4000, 4}, {6000, 4}})
      .backward()
      .grad_inputs({0})
      .float64_param("beta", 1.0, 1e-6, 1e6) // the original asserts beta > 0
      .inputs(regression_pair)
      .body([](const Params& p) { // the parameters read once, outside the timed calls
        const double beta = p.float64("beta");
        return Sample::Body([beta](const Tensors& t) {
          return Tensors{samples::smooth_l1_loss(t[0], t[1], beta)};
        });
      });
  family
      .add("l1_loss", {"Reduce", "IfElseBranch"}, "MMDET",
           "https://github.com/open-mmlab/mmdetection/blob/"
           "276b7c300f72ab824c9a1087a0f7a11154e00564/mmdet/models/losses/smooth_l1_loss.py#L37")
      .axes({"rows", "columns"})
      .cases({{128, 4}, {256, 4}, {512, 4}})
      .backward()
      .grad_inputs({0})
      .inputs(regression_pair)
      .body([](const Tensors& t) { return Tensors{samples::l1_loss(t[0], t[1])}; });
  family.add("balanced_l1_loss", {}, "MMDET", k_losses + "balanced_l1_loss.py#L13")
      .axes({"rows", "columns"})
      .cases({{128, 4}, {256, 8}, {512, 16}})
      .backward()
      .grad_inputs({0})
      .float64_param("alpha", 0.5, 1e-3, 10.0)
      .float64_param("gamma", 1.5, 1e-3, 10.0)
      .float64_param("beta", 1.0, 1e-6, 1e6) // the original asserts beta > 0
      .inputs(regression_pair)
      .body([](const Params& p) { // the parameters read once, outside the timed calls
        const double alpha = p.float64("alpha");
        const double gamma = p.float64("gamma");
        const double beta = p.float64("beta");
        return Sample::Body([alpha, gamma, beta](const Tensors& t) {
          return Tensors{balanced_l1_loss(t[0], t[1], alpha, gamma, beta)};
        });
      });
  family
      .add("charbonnier_loss", {}, "MMEDIT",
           "https://github.com/open-mmlab/mmediting/blob/ce2a70f1321907d1451a376637cf56be76168a67/"
           "mmedit/models/losses/pixelwise_loss.py#L41")
      .axes({"rows", "columns"})
      .cases({{300, 8}, {600, 16}, {800, 32}})
      .backward()
      .grad_inputs({0})
      .inputs(regression_pair)
      .body([](const Tensors& t) { return Tensors{charbonnier_loss(t[0], t[1])}; });
  family.add("label_smooth_celoss", {"ViewAttribute", "Reduce"}, "UNKNOWN", "")
      .axes({"samples", "classes"})
      .cases({{3000, 4}, {2000, 2}, {1000, 4}})
      .backward()
      .grad_inputs({0})
      .written_from(
          "the label-smoothing cross entropy of Szegedy et al. 2016 (Inception-v3) as "
          "LongTail-Bench's own copy computes it "
          "(DeepLink-org/DLOP-Bench, bench/samples/long_tail/label_smooth_celoss/torch_impl.py: 6 "
          "classes' smoothing)")
      .inputs([](const Json& s, at::Generator& g) {
        const auto n = size_at(s, 0), k = s.at(1).get<std::int64_t>();
        return Tensors{at::randn({n, k}, g),
                       at::randint(0, k, {n}, g, at::TensorOptions().dtype(at::kLong))};
      })
      .float64_param("smoothing", 0.1, 0.0, 1.0)
      .body([](const Params& p) { // the parameters read once, outside the timed calls
        const double smoothing = p.float64("smoothing");
        return Sample::Body([smoothing](const Tensors& t) {
          return Tensors{label_smooth_celoss(t[0], t[1], smoothing)};
        });
      });
  family
      .add("weight_reduce_loss", {"Reduce", "IfElseBranch"}, "MMSEG",
           "https://github.com/open-mmlab/mmsegmentation/blob/"
           "504965184c3e6bc9ec43af54237129ef21981a5f/mmseg/models/losses/utils.py#L47")
      .axes({"rows", "columns"})
      .cases({{128, 4}, {64, 4}, {8, 4}})
      .backward()
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        const std::vector<std::int64_t> shape{size_at(s, 0), s.at(1).get<std::int64_t>()};
        return Tensors{at::rand(shape, g), at::rand(shape, g)};
      })
      .string_param("reduction", {"mean", "sum", "none"})
      .body([](const Params& p) { // the parameters read once, outside the timed calls
        const std::string reduction = p.string("reduction");
        return Sample::Body([reduction](const Tensors& t) {
          return Tensors{weight_reduce_loss(t[0], t[1], reduction)};
        });
      });
  // (batch, classes, height, width) scores and per-pixel labels.
  family.add("dice_loss", {"IfElseBranch", "Reduce", "ViewAttribute"}, "UNKNOWN", "")
      .axes({"batch", "classes", "height", "width"})
      .cases({{3, 4, 5, 6}, {4, 5, 6, 7}, {5, 6, 7, 8}})
      .written_from("a Dice loss (Milletari et al. 2016, V-Net) in the form LongTail-Bench's own "
                    "copy times (DeepLink-org/DLOP-Bench, "
                    "bench/samples/long_tail/dice_loss/torch_impl.py): softmax, labels one-hot by "
                    "scatter, per image and class "
                    "1 - (2|P.T| + s) / (|P|^2 + |T|^2 - |P.T| + s), s = 1e-5, averaged")
      .inputs([](const Json& s, at::Generator& g) {
        const auto n = size_at(s, 0), k = size_at(s, 1), h = size_at(s, 2), w = size_at(s, 3);
        return Tensors{at::randn({n, k, h, w}, g),
                       at::randint(0, k, {n, h, w}, g, at::TensorOptions().dtype(at::kLong))};
      })
      .body([](const Tensors& t) { return Tensors{dice_loss(t[0], t[1])}; });
  // (boxes): predictions and targets of a box head, 4 coordinates each, a quarter of them ignored.
  family
      .add("ghmr_loss", {"ViewAttribute", "IfElseBranch", "ForLoop"}, "MMDET",
           "https://github.com/open-mmlab/mmdetection/blob/"
           "2294badd86b0bc83e49692187a4639b69f2ec4b8/mmdet/models/losses/ghm_loss.py#L122")
      .axes({"boxes"})
      .cases({{3000}, {2000}, {4000}})
      .backward()
      .grad_inputs({0})
      .host_sync(
          "as the original: the weight total and each bin's count are read on the host (.item())")
      .inputs([](const Json& s, at::Generator& g) {
        const auto n = size_at(s, 0);
        return Tensors{at::randn({n, 4}, g) * 0.1, at::randn({n, 4}, g) * 0.1,
                       (at::rand({n, 4}, g) > 0.25).to(at::kFloat)};
      })
      .float64_param("mu", 0.02, 1e-6, 10.0)
      .int64_param("bins", 10, 1, 1000)
      .body([](const Params& p) { // the parameters read once, outside the timed calls
        const double mu = p.float64("mu");
        const std::int64_t bins = p.int64("bins");
        return Sample::Body([mu, bins](const Tensors& t) {
          return Tensors{ghmr_loss(t[0], t[1], t[2], mu, bins)};
        });
      });
  // (RoIs, 4): 81 class scores (80 classes and background), class-agnostic boxes; half positive.
  family
      .add("carl_loss",
           {"InputAware", "ViewAttribute", "IfElseBranch", "BuiltInDataStructure", "Reduce",
            "AdvancedIndexing"},
           "MMDET",
           "https://github.com/open-mmlab/mmdetection/blob/"
           "bde7b4b7eea9dd6ee91a486c6996b2d68662366d/mmdet/models/losses/pisa_loss.py#L123")
      .axes({"rois", "coordinates"})
      .cases({{32, 4}, {64, 4}, {16, 4}})
      .backward()
      .grad_inputs({0, 2}) // the class scores and the box predictions, not the assigner's targets
      .host_sync("as the original: the positives are found with nonzero (a data-dependent size)")
      .inputs([](const Json& s, at::Generator& g) {
        const auto n = size_at(s, 0), coords = size_at(s, 1);
        auto labels = at::randint(0, 80, {n}, g, at::TensorOptions().dtype(at::kLong));
        labels.masked_fill_(at::rand({n}, g) < 0.5, 80); // background
        return Tensors{at::randn({n, 81}, g), labels, at::randn({n, coords}, g),
                       at::randn({n, coords}, g)};
      })
      .body([](const Tensors& t) { return Tensors{carl_loss(t[0], t[1], t[2], t[3])}; });
  // (the last image's index, objects an image, embedding positions, embedding dimensions).
  // (low, high, images, objects): tags of `objects` slots an image, the mask of the real objects
  // drawn as LongTail-Bench draws it, from integers in [low, high) (here: those above low, about
  // half; it passes the integers themselves, which a boolean mask cannot be).
  auto tag_inputs = [](const Json& s, at::Generator& g) {
    const auto low = size_at(s, 0), high = size_at(s, 1), images = size_at(s, 2),
               objects = size_at(s, 3);
    return Tensors{
        at::randn({images, objects}, g), at::randn({images, objects}, g),
        at::randint(low, high, {images, objects}, g, at::TensorOptions().dtype(at::kLong)) > low};
  };
  const char* tags_from =
      "CornerNet's associative-embedding loss (Law and Deng 2018, _ae_loss in kp_utils.py), its "
      "pull and push "
      "halves, as LongTail-Bench's own copies (DeepLink-org/DLOP-Bench, bench/samples/long_tail/"
      "associative_pull_loss and associative_push_loss) compute them";
  const char* tags_sync =
      "as the original: the real objects and pairs are chosen with boolean masks (tag0[mask])";
  family
      .add("associative_pull_loss", {"Reduce", "ViewAttribute", "AdvancedIndexing"}, "UNKNOWN", "")
      .axes({"mask_low", "mask_high", "images", "objects"})
      .cases({{0, 2, 3000, 4}, {0, 3, 2000, 2}, {0, 3, 6000, 8}})
      .backward()
      .grad_inputs({0, 1})
      .host_sync(tags_sync)
      .written_from(tags_from)
      .inputs(tag_inputs)
      .body([](const Tensors& t) { return Tensors{associative_pull_loss(t[0], t[1], t[2])}; });
  family
      .add("associative_push_loss", {"Reduce", "ViewAttribute", "AdvancedIndexing"}, "UNKNOWN", "")
      .axes({"mask_low", "mask_high", "images", "objects"})
      .cases({{0, 2, 32, 8}, {1, 3, 64, 4}, {2, 4, 64, 16}})
      .backward()
      .grad_inputs({0, 1})
      .host_sync(tags_sync)
      .written_from(tags_from)
      .inputs(tag_inputs)
      .body([](const Tensors& t) { return Tensors{associative_push_loss(t[0], t[1], t[2])}; });
  // (points, classes): heatmap logits and Gaussian targets, one centre in twenty.
  family.add("gaussian_sigmoid_focalloss", {"ViewAttribute", "InputAware"}, "POD", "")
      .axes({"points", "classes"})
      .cases({{300, 4}, {400, 4}, {200, 4}})
      .backward()
      .grad_inputs({0})
      .host_sync(
          "as the original: centres and the rest are picked with boolean masks (input[pos_inds])")
      .written_from("the Gaussian focal loss of CornerNet and CenterNet (penalty-reduced focal "
                    "loss on Gaussian heatmaps, gamma 2, "
                    "beta 4) as POD's GaussianSigmoidFocalLoss, after LongTail-Bench's own copy "
                    "(DeepLink-org/DLOP-Bench, "
                    "bench/samples/long_tail/gaussian_sigmoid_focalloss/torch_impl.py)")
      .inputs([](const Json& s, at::Generator& g) {
        const auto n = size_at(s, 0), k = size_at(s, 1);
        auto target = at::rand({n, k}, g) * 0.9;
        target.masked_fill_(at::rand({n, k}, g) < 0.05, 1.0);
        return Tensors{at::randn({n, k}, g), target};
      })
      .float64_param("gamma", 2.0, 0.0, 10.0)
      .float64_param("beta", 4.0, 0.0, 10.0)
      .body([](const Params& p) { // the parameters read once, outside the timed calls
        const double gamma = p.float64("gamma");
        const double beta = p.float64("beta");
        return Sample::Body([gamma, beta](const Tensors& t) {
          return Tensors{gaussian_sigmoid_focal_loss(t[0], t[1], gamma, beta)};
        });
      });
  family
      .add("bounded_iou_loss", {"ViewAttribute"}, "MMDET",
           "https://github.com/open-mmlab/mmdetection/blob/"
           "c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/losses/iou_loss.py#L55")
      .axes({"boxes_x256"})
      .cases({{4}, {8}, {12}})
      .backward()
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        const auto n = size_at(s, 0) * 256;
        const auto target = random_boxes(n, g);
        return Tensors{target + at::rand({n, 4}, g), target};
      })
      .float64_param("beta", 0.2, 1e-6, 10.0)
      .body([](const Params& p) { // the parameters read once, outside the timed calls
        const double beta = p.float64("beta");
        return Sample::Body(
            [beta](const Tensors& t) { return Tensors{bounded_iou_loss(t[0], t[1], beta)}; });
      });
  family.add("focal_loss", {"Reduce"}, "SEGMENTBASE2", "")
      .axes({"pixels_x16"})
      .cases({{128}, {256}, {512}})
      .backward()
      .grad_inputs({0})
      .written_from("the softmax focal loss of Lin et al. 2017 (RetinaNet) over class scores")
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({size_at(s, 0) * 16, 19}, g),
                       random_labels(19, {size_at(s, 0) * 16}, g)};
      })
      .body([](const Tensors& t) { return Tensors{softmax_focal_loss(t[0], t[1])}; });
  family
      .add(
          "gaussian_focal_loss", {}, "MMDET",
          "https://github.com/open-mmlab/mmdetection/blob/bde7b4b7eea9dd6ee91a486c6996b2d68662366d/"
          "mmdet/models/losses/gaussian_focal_loss.py#L11")
      .axes({"rows", "columns"})
      .cases({{128, 4}, {256, 4}, {512, 4}})
      .backward()
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        auto target = at::rand({size_at(s, 0), size_at(s, 1), 32}, g);
        target.select(2, 0).fill_(1.0); // gaussian peaks
        return Tensors{at::rand({size_at(s, 0), size_at(s, 1), 32}, g) * 0.98 + 0.01, target};
      })
      .float64_param("alpha", 2.0, 0.0, 10.0)
      .float64_param("gamma", 4.0, 0.0, 10.0)
      .body([](const Params& p) { // the parameters read once, outside the timed calls
        const double alpha = p.float64("alpha");
        const double gamma = p.float64("gamma");
        return Sample::Body([alpha, gamma](const Tensors& t) {
          return Tensors{gaussian_focal_loss(t[0], t[1], alpha, gamma)};
        });
      });
  family
      .add("varifocal_loss", {"Reduce", "IfElseBranch"}, "MMDET",
           "https://github.com/open-mmlab/mmdetection/blob/"
           "c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/losses/varifocal_loss.py#L11")
      .axes({"points_x16", "unused"})
      .cases({{128, 4}, {256, 4}, {512, 4}})
      .backward()
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        const auto shape = std::vector<int64_t>{size_at(s, 0) * 16, 80};
        return Tensors{at::randn(shape, g),
                       at::rand(shape, g) * (at::rand(shape, g) > 0.9).to(at::kFloat)};
      })
      .float64_param("alpha", 0.75, 0.0, 1.0)
      .float64_param("gamma", 2.0, 0.0, 10.0)
      .body([](const Params& p) { // the parameters read once, outside the timed calls
        const double alpha = p.float64("alpha");
        const double gamma = p.float64("gamma");
        return Sample::Body([alpha, gamma](const Tensors& t) {
          return Tensors{varifocal_loss(t[0], t[1], alpha, gamma)};
        });
      });
  family.add("l2_loss", {"Reduce"}, "SEGMENTBASE2", "")
      .axes({"batch", "positions"})
      .cases({{16, 32}, {16, 16}, {32, 32}})
      .backward()
      .grad_inputs({0})
      .written_from("the mean squared difference of prediction and target")
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({size_at(s, 0), size_at(s, 1), 64}, g),
                       at::randn({size_at(s, 0), size_at(s, 1), 64}, g)};
      })
      .body([](const Tensors& t) { return Tensors{l2_loss(t[0], t[1])}; });
  family
      .add("mmdetection_accuracy", {"ForLoop", "IfElseBranch", "ViewAttribute"}, "MMDET",
           "https://github.com/open-mmlab/mmdetection/blob/"
           "bde7b4b7eea9dd6ee91a486c6996b2d68662366d/mmdet/models/losses/accuracy.py#L7")
      .axes({"samples", "classes"})
      .cases({{32, 1000}, {16, 2000}, {8, 3000}})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({size_at(s, 0), size_at(s, 1)}, g),
                       random_labels(size_at(s, 1), {size_at(s, 0)}, g)};
      })
      .body([](const Tensors& t) {
        return Tensors{mmdetection_accuracy(t[0], t[1], {1, 5})};
      });
}

} // namespace opbench::samples
