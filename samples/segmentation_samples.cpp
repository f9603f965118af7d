// Semantic segmentation: EncNet's encoding layer (MMSegmentation's aggregate and scaled_l2), and
// the losses of segmentation and its distillation (segmentbase2, SEGMENTBASE2 in the catalogue,
// and the softgauss-weighted family): edge maps, boundaries, class centres, soft labels.
// Those losses follow LongTail-Bench's copy of the original (see segmentation_ops.hpp) and its
// inputs: small score maps of 2 classes, labels the arg max of random maps.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "registry.hpp"
#include "segmentation_ops.hpp"

namespace opbench::samples {
namespace {

using at::indexing::Slice;

bool same_size(const at::Tensor& a, const at::Tensor& b) {
  return a.size(-1) == b.size(-1) && a.size(-2) == b.size(-2);
}

// The student resized to the teacher (bilinear), as the distillation losses do when they differ.
at::Tensor resized_like(const at::Tensor& student, const at::Tensor& teacher) {
  if (same_size(student, teacher))
    return student;
  return at::upsample_bilinear2d(student, {teacher.size(2), teacher.size(3)},
                                 /*align_corners=*/false);
}

// Labels (B, 1, h, w) resized (nearest) to `size` and spread over the channels of `like`.
at::Tensor labels_like(const at::Tensor& labels, const at::Tensor& like) {
  return at::upsample_nearest2d(labels.to(like.scalar_type()), {like.size(2), like.size(3)})
      .expand(like.sizes());
}

// The teacher's scores as the student's type, detached, resized to them (bilinear, corners
// aligned) where they differ, as the soft-label distillation losses begin.
at::Tensor teacher_like(const at::Tensor& teacher_scores, const at::Tensor& scores) {
  auto soft = teacher_scores.to(scores.scalar_type()).detach();
  if (soft.sizes() != scores.sizes()) {
    soft = at::upsample_bilinear2d(soft, {scores.size(2), scores.size(3)}, /*align_corners=*/true);
  }
  return soft;
}

// The squared Euclidean distance of every sample of a line to the nearest site (f = 0 at sites,
// `far` elsewhere): Felzenszwalb and Huttenlocher's lower envelope of parabolas, O(n).
void squared_distance_1d(const std::vector<double>& f, std::vector<double>& d) {
  const auto n = static_cast<std::int64_t>(f.size());
  std::vector<std::int64_t> v(n);
  std::vector<double> z(n + 1);
  std::int64_t k = 0;
  v[0] = 0;
  z[0] = -std::numeric_limits<double>::infinity();
  z[1] = std::numeric_limits<double>::infinity();
  const auto meet = [&](std::int64_t q, std::int64_t p) {
    return ((f[q] + static_cast<double>(q * q)) - (f[p] + static_cast<double>(p * p))) /
           static_cast<double>(2 * (q - p));
  };
  for (std::int64_t q = 1; q < n; ++q) {
    double s = meet(q, v[k]);
    while (s <= z[k])
      s = meet(q, v[--k]);
    ++k;
    v[k] = q;
    z[k] = s;
    z[k + 1] = std::numeric_limits<double>::infinity();
  }
  k = 0;
  for (std::int64_t q = 0; q < n; ++q) {
    while (z[k + 1] < static_cast<double>(q))
      ++k;
    d[q] = static_cast<double>((q - v[k]) * (q - v[k])) + f[v[k]];
  }
}

} // namespace

at::Tensor squared_distance_transform(const at::Tensor& sites) {
  const auto h = sites.size(0), w = sites.size(1);
  const auto mask = sites.contiguous();
  const bool* on = mask.data_ptr<bool>();
  constexpr double far =
      1e12; // beyond any image's squared distances, small enough to subtract exactly
  auto out = at::empty({h, w}, at::TensorOptions().dtype(at::kDouble).device(at::kCPU));
  double* d = out.data_ptr<double>();
  std::vector<double> f(static_cast<std::size_t>(h)), line(static_cast<std::size_t>(h));
  for (std::int64_t x = 0; x < w; ++x) { // columns
    for (std::int64_t y = 0; y < h; ++y)
      f[y] = on[y * w + x] ? 0.0 : far;
    squared_distance_1d(f, line);
    for (std::int64_t y = 0; y < h; ++y)
      d[y * w + x] = line[y];
  }
  f.resize(static_cast<std::size_t>(w));
  line.resize(static_cast<std::size_t>(w));
  for (std::int64_t y = 0; y < h; ++y) { // then rows
    for (std::int64_t x = 0; x < w; ++x)
      f[x] = d[y * w + x];
    squared_distance_1d(f, line);
    for (std::int64_t x = 0; x < w; ++x)
      d[y * w + x] = line[x];
  }
  return out;
}

namespace {

// A label map's boundary pixels: those whose right or lower neighbour has another label.
at::Tensor boundary_of(const at::Tensor& labels) {
  const auto h = labels.size(0), w = labels.size(1);
  auto edge = at::zeros({h, w}, labels.options().dtype(at::kBool));
  if (w > 1)
    edge.narrow(1, 0, w - 1).logical_or_(labels.narrow(1, 0, w - 1) != labels.narrow(1, 1, w - 1));
  if (h > 1)
    edge.narrow(0, 0, h - 1).logical_or_(labels.narrow(0, 0, h - 1) != labels.narrow(0, 1, h - 1));
  return edge;
}

} // namespace

at::Tensor edge_wbce_loss(const at::Tensor& logits, const at::Tensor& labels, double loss_weight) {
  auto target = labels.unsqueeze(1);
  target = target.masked_fill(target == k_ignore_label, 0).to(logits.scalar_type());
  const auto beta = 1 - target.mean();
  const auto weight = 1 - beta + (2 * beta - 1) * target;
  return loss_weight * at::binary_cross_entropy_with_logits(logits, target, weight);
}

at::Tensor sobel_kernel_x(std::int64_t channels, const at::TensorOptions& options) {
  const auto i = at::arange(3, options);
  const auto smooth = 2 - (i - 1).abs(); // 1 2 1 down the rows
  const auto diff = 1 - i;               // 1 0 -1 along a row
  return (smooth.unsqueeze(1) * diff.unsqueeze(0))
      .view({1, 1, 3, 3})
      .expand({channels, 1, 3, 3})
      .contiguous();
}

at::Tensor sobel_kernel_y(std::int64_t channels, const at::TensorOptions& options) {
  return sobel_kernel_x(channels, options).transpose(2, 3).contiguous();
}

at::Tensor gradient_loss(const at::Tensor& student, const at::Tensor& teacher,
                         const at::Tensor& labels, const at::Tensor& sobel_x,
                         const at::Tensor& sobel_y, double loss_weight) {
  const auto s = resized_like(student, teacher);
  auto label = labels.dim() == 3 ? labels.unsqueeze(1) : labels;
  if (!same_size(label, teacher))
    label = labels_like(label, teacher);
  auto index = label != k_ignore_label;
  if (!index.any().item<bool>())
    return s.mean() * 0;
  index = index.expand(teacher.sizes());
  // The module's Sobel convolutions: fixed weights.
  const auto kx = sobel_x.detach(), ky = sobel_y.detach();
  const auto groups = teacher.size(1);
  // Stride, padding and dilation for both dimensions, as Python passes them (layer_samples.cpp).
  const auto normalised_gradients = [&](const at::Tensor& x) {
    const auto gx = at::conv2d(x, kx, {}, {1, 1}, {1, 1}, {1, 1}, groups);
    const auto gy = at::conv2d(x, ky, {}, {1, 1}, {1, 1}, {1, 1}, groups);
    const auto magnitude = at::sqrt(gx.pow(2) + gy.pow(2) + 1e-5);
    return std::make_pair(gx / magnitude, gy / magnitude);
  };
  const auto [sx, sy] = normalised_gradients(s);
  const auto [tx, ty] = normalised_gradients(teacher);
  const auto loss_x = at::mse_loss(sx, tx, at::Reduction::None);
  const auto loss_y = at::mse_loss(sy, ty, at::Reduction::None);
  return loss_weight * (loss_x.index({index}).mean() + loss_y.index({index}).mean());
}

at::Tensor edge_smooth_loss(const at::Tensor& logits, const at::Tensor& edge_logits,
                            const at::Tensor& edge_labels, double beta, std::int64_t k, double m,
                            double loss_weight) {
  auto edge = edge_labels.unsqueeze(1).to(logits.scalar_type());
  edge = edge.masked_fill(edge != 1, 0);
  // Stride, padding and dilation for both dimensions, as Python passes them (layer_samples.cpp).
  edge = at::conv2d(edge, at::ones({1, 1, k, k}, edge.options()), {}, {1, 1}, {k >> 1, k >> 1},
                    {1, 1});
  edge = edge.masked_fill(edge > m, m);
  // The original computes the edge probabilities whatever its weight type; "gs" weighs by the
  // labels' edges alone.
  const auto edge_probabilities = at::sigmoid(edge_logits).detach().clone();
  (void)edge_probabilities;
  const auto pred = at::pad(at::softmax(logits, 1), {0, 1, 0, 1}, "replicate");
  const auto corner =
      pred.index({Slice(), Slice(), Slice(at::indexing::None, -1), Slice(at::indexing::None, -1)});
  auto grad_x =
      (pred.index({Slice(), Slice(), Slice(at::indexing::None, -1), Slice(1, at::indexing::None)}) -
       corner)
          .abs();
  auto grad_y =
      (pred.index({Slice(), Slice(), Slice(1, at::indexing::None), Slice(at::indexing::None, -1)}) -
       corner)
          .abs();
  const auto weights = at::exp(-beta * edge.abs());
  grad_x = grad_x * weights;
  grad_y = grad_y * weights;
  return loss_weight * (grad_x.mean() + grad_y.mean());
}

at::Tensor ifv_loss(const at::Tensor& student, const at::Tensor& teacher, const at::Tensor& labels,
                    std::int64_t classes, double loss_weight) {
  const auto feat_s = resized_like(student, teacher);
  const auto feat_t = teacher.detach();
  const auto target_s = labels_like(labels, feat_s), target_t = labels_like(labels, feat_t);
  auto centre_s = feat_s.clone().detach(), centre_t = feat_t.clone().detach();
  for (std::int64_t c = 0; c < classes; ++c) {
    const auto mask_s = (target_s == static_cast<double>(c)).to(feat_s.scalar_type());
    const auto mask_t = (target_t == static_cast<double>(c)).to(feat_t.scalar_type());
    centre_s =
        (1 - mask_s) * centre_s + mask_s * ((mask_s * feat_s).sum({-1, -2}, /*keepdim=*/true) /
                                            (mask_s.sum({-1, -2}, true) + 1e-6));
    centre_t =
        (1 - mask_t) * centre_t + mask_t * ((mask_t * feat_t).sum({-1, -2}, /*keepdim=*/true) /
                                            (mask_t.sum({-1, -2}, true) + 1e-6));
  }
  const auto loss = at::mse_loss(at::cosine_similarity(feat_s, centre_s, 1),
                                 at::cosine_similarity(feat_t, centre_t, 1), at::Reduction::None);
  const auto target =
      at::upsample_nearest2d(labels.to(loss.scalar_type()), {loss.size(-2), loss.size(-1)})
          .squeeze(1);
  const auto index = target != k_ignore_label;
  if (index.any().item<bool>())
    return loss_weight * loss.index({index}).mean();
  return loss.mean() * 0;
}

at::Tensor inter_region_loss(const at::Tensor& student, const at::Tensor& teacher,
                             const at::Tensor& labels, std::int64_t classes, double loss_weight) {
  const auto feat_s = resized_like(student, teacher);
  const auto feat_t = teacher.detach();
  const auto target_s = labels_like(labels, feat_s), target_t = labels_like(labels, feat_t);
  auto centre_s = at::zeros({feat_s.size(0), feat_s.size(1), classes}, feat_s.options());
  auto centre_t = at::zeros({feat_t.size(0), feat_t.size(1), classes}, feat_t.options());
  for (std::int64_t c = 0; c < classes; ++c) {
    const auto mask_s = (target_s == static_cast<double>(c)).to(feat_s.scalar_type());
    const auto mask_t = (target_t == static_cast<double>(c)).to(feat_t.scalar_type());
    centre_s.select(2, c).copy_((mask_s * feat_s).sum(-1).sum(-1) /
                                (mask_s.sum(-1).sum(-1) + 1e-6));
    centre_t.select(2, c).copy_((mask_t * feat_t).sum(-1).sum(-1) /
                                (mask_t.sum(-1).sum(-1) + 1e-6));
  }
  // Cosine similarity along the channels between every pair of class centres.
  centre_s = centre_s.unsqueeze(3).repeat({1, 1, 1, classes});
  centre_t = centre_t.unsqueeze(3).repeat({1, 1, 1, classes});
  const auto similarity_s = at::cosine_similarity(centre_s, centre_s.permute({0, 1, 3, 2}), 1);
  const auto similarity_t = at::cosine_similarity(centre_t, centre_t.permute({0, 1, 3, 2}), 1);
  return loss_weight * at::mse_loss(similarity_s, similarity_t);
}

at::Tensor knowledge_gap_loss(const at::Tensor& scores, const at::Tensor& labels,
                              const at::Tensor& teacher_scores, double temperature,
                              double loss_weight) {
  const auto soft = teacher_like(teacher_scores, scores);
  const auto index = labels != k_ignore_label;
  const auto classes = soft.size(1);
  const auto label = labels.masked_fill(labels == k_ignore_label, 0).unsqueeze(1);
  const auto s = scores / temperature;
  const auto p_s = at::softmax(s, 1).detach();
  const auto p_t = at::softmax(soft / temperature, 1);
  // How much more the teacher believes the true class than the student, at least 0.
  const auto gap = (p_t.gather(1, label).squeeze(1) - p_s.gather(1, label).squeeze(1)).clamp_min(0);
  const auto w = gap.unsqueeze(1).expand({-1, classes, -1, -1});
  const auto h = w * (p_t * (p_t.log() - at::log_softmax(s, 1)));
  return h.sum(1).index({index}).mean() * loss_weight;
}

at::Tensor sce_loss(const at::Tensor& scores, const at::Tensor& labels,
                    const at::Tensor& teacher_scores, double temperature, double loss_weight) {
  const auto soft = teacher_like(teacher_scores, scores);
  const auto classes = scores.size(1);
  const auto ignore = (labels == k_ignore_label).unsqueeze(1);
  const auto valid = labels != k_ignore_label;
  // Where the teacher's arg max is not the label.
  const auto disagree = (labels != soft.argmax(1)).unsqueeze(1).expand(scores.sizes());
  // The smoothed one-hot label: 0.95 on the label, 0.05 / classes elsewhere.
  const auto label = labels.unsqueeze(1).masked_fill(ignore, 0);
  const auto one_hot =
      (at::zeros(scores.sizes(), labels.options()) + 0.05 / static_cast<double>(classes))
          .scatter(1, label, 0.95);
  auto t_prob = at::softmax(soft / temperature, 1);
  const auto sorted = std::get<0>(t_prob.sort(1, /*descending=*/true));
  const auto confidence = sorted.narrow(1, 0, 1) - sorted.narrow(1, 1, 1);
  const auto blended = t_prob * confidence + one_hot * (1 - confidence);
  t_prob.index_put_({disagree}, blended.index({disagree}).to(t_prob.scalar_type()));
  t_prob = t_prob.detach();
  const auto h = t_prob * (t_prob.log() - at::log_softmax(scores / temperature, 1));
  const auto total = h.sum(1); // channel_sum, as LongTail-Bench configures it
  if (!valid.any().item<bool>())
    return total.mean() * 0;
  return loss_weight * total.index({valid}).mean();
}

at::Tensor softgauss_loss_weight(const at::Tensor& scores, const at::Tensor& labels, double sigma) {
  const auto host = at::TensorOptions().device(at::kCPU);
  const auto targets =
      labels.to(at::kCPU, labels.scalar_type(), /*non_blocking=*/false, /*copy=*/true);
  const auto preds =
      scores.argmax(1).to(at::kCPU, at::kLong, /*non_blocking=*/false, /*copy=*/true);
  auto heatmaps = at::zeros(targets.sizes(), host.dtype(at::kDouble));
  for (std::int64_t i = 0; i < targets.size(0); ++i) {
    const auto ignore = targets[i] == k_ignore_label;
    const auto target = targets[i].masked_fill(ignore, 0);
    const auto pred = preds[i].masked_fill(ignore, 0);
    const auto sites = boundary_of(target).logical_or(target != pred);
    auto heatmap = 1 + at::exp(-squared_distance_transform(sites) / (2 * sigma * sigma));
    heatmap = heatmap.masked_fill(ignore, 0);
    heatmaps[i].copy_(heatmap / (heatmap.sum() + 1e-10));
  }
  return heatmaps.to(scores.device()); // as the original, back on the scores' device
}

at::Tensor softgbw_loss(const at::Tensor& scores, const at::Tensor& labels, double sigma,
                        double loss_weight) {
  const auto weight = softgauss_loss_weight(scores, labels, sigma).to(scores.options());
  const auto ce = at::cross_entropy_loss(scores, labels, {}, at::Reduction::None, k_ignore_label);
  return loss_weight * (ce * weight).sum({1, 2}).mean();
}

at::Tensor margin_loss(const at::Tensor& scores, const at::Tensor& labels, double margin,
                       double sigma, double loss_weight) {
  auto loss = softgbw_loss(scores, labels, sigma, 1.0);
  const auto right = scores.argmax(1) == labels.to(at::kLong);
  // The two highest logits' classes, from an argsort on the host (numpy in the original).
  const auto order =
      std::get<1>(scores.detach().to(at::kCPU, scores.scalar_type(), false, /*copy=*/true).sort(1));
  const auto classes = scores.size(1);
  const auto top = order.narrow(1, classes - 1, 1).to(scores.options()).to(at::kLong);
  const auto second = order.narrow(1, classes - 2, 1).to(scores.options()).to(at::kLong);
  const auto gap = scores.gather(1, top) - scores.gather(1, second);
  auto margin_term = at::maximum(at::zeros({1}, scores.options()), margin - gap).squeeze(1);
  margin_term = margin_term.masked_fill(right.logical_not(), 0);
  loss = loss + margin_term.mean();
  return loss_weight * loss;
}

namespace {

// `n` maps (n, channels, side, side) of uniform values, or of normal ones times `scale`.
at::Tensor uniform_maps(std::int64_t n, std::int64_t channels, std::int64_t side,
                        at::Generator& g) {
  return at::rand({n, channels, side, side}, g);
}
at::Tensor normal_maps(std::int64_t n, std::int64_t channels, std::int64_t side, at::Generator& g,
                       double scale) {
  return at::randn({n, channels, side, side}, g) * scale;
}
// Labels as LongTail-Bench makes them: the arg max over 2 classes of random maps (n, side, side).
at::Tensor argmax_labels(const at::Tensor& maps) {
  return maps.argmax(1);
}

constexpr const char* k_from_longtail_bench =
    "LongTail-Bench's own copy of the original (DeepLink-org/DLOP-Bench, bench/samples/long_tail/";

std::string written_from(const std::string& name, const std::string& what) {
  return what + "; as " + k_from_longtail_bench + name + "/torch_impl.py)";
}

} // namespace

at::Tensor aggregate(const at::Tensor& a, const at::Tensor& x, const at::Tensor& c) {
  // E[b, k] = sum_n a[b, n, k] * (x[b, n] - c[k])
  return (a.unsqueeze(3) * (x.unsqueeze(2) - c.unsqueeze(0).unsqueeze(0))).sum(1);
}

at::Tensor scaled_l2(const at::Tensor& x, const at::Tensor& c, const at::Tensor& s) {
  const auto diff = x.unsqueeze(2) - c.view({1, 1, c.size(0), c.size(1)});
  return s.view({1, 1, -1}) * diff.pow(2).sum(3);
}

void register_segmentation_samples(std::vector<Sample>& out) {
  Family family(out, "segmentation_samples.cpp");
  // The losses of segmentbase2 and the softgauss family differentiate the student's scores (input
  // 0) only: LongTail-Bench's args_adaptor sets requires_grad on them alone, not on the teacher's
  // scores, the labels or the Sobel kernels.
  // (batch): edge logits and labels of 3 x 3 maps.
  family.add("edge_wbceloss", {"ViewAttribute", "Reduce"}, "SEGMENTBASE2", "")
      .axes({"batch"})
      .cases({{2}, {4}, {8}})
      .backward()
      .grad_inputs({0})
      .written_from(written_from("edge_wbceloss",
                                 "segmentbase2's WBCELoss: the class-balanced edge cross entropy "
                                 "of HED (Xie and Tu 2015), "
                                 "beta from the batch's share of edge pixels, times 10"))
      .inputs([](const Json& s, at::Generator& g) {
        const auto b = size_at(s, 0);
        return Tensors{normal_maps(b, 1, 3, g, 1.0), argmax_labels(normal_maps(b, 2, 3, g, 1.0))};
      })
      .body([](const Tensors& t) { return Tensors{edge_wbce_loss(t[0], t[1])}; });
  // (batch): student and teacher scores of 2 classes at 3 x 3 (x 100), the module's Sobel kernels.
  family.add("gradient_loss", {"ViewAttribute", "IfElseBranch", "Reduce"}, "SEGMENTBASE2", "")
      .axes({"batch"})
      .cases({{128}, {256}, {512}})
      .backward()
      .grad_inputs({0})
      .host_sync(
          "as the original: torch.any(index) in a Python if, and a boolean mask (loss[index])")
      .written_from(written_from("gradient_loss",
                                 "segmentbase2's GradientLoss: the mean squared difference of the "
                                 "magnitude-normalised Sobel "
                                 "gradients of student and teacher over the labelled pixels"))
      .inputs([](const Json& s, at::Generator& g) {
        const auto b = size_at(s, 0);
        const auto student = uniform_maps(b, 2, 3, g) * 100,
                   labels = argmax_labels(uniform_maps(b, 2, 3, g));
        const auto teacher = uniform_maps(b, 2, 3, g) * 100;
        return Tensors{student, teacher, labels, sobel_kernel_x(2, student.options()),
                       sobel_kernel_y(2, student.options())};
      })
      .body([](const Tensors& t) { return Tensors{gradient_loss(t[0], t[1], t[2], t[3], t[4])}; });
  // (batch): class logits (4 classes), edge logits and labels of 3 x 3 maps; forward only, as
  // LongTail-Bench times it.
  family
      .add("edge_smoothloss", {"ViewAttribute", "IfElseBranch", "Reduce", "ForLoop"},
           "SEGMENTBASE2", "")
      .axes({"batch"})
      .cases({{2}, {4}, {8}})
      .written_from(written_from(
          "edge_smoothloss",
          "segmentbase2's SmoothLoss: the finite differences of the class probabilities, "
          "weighted by exp(-10 x the edge count of each pixel's 3 x 3 window), times 10"))
      .inputs([](const Json& s, at::Generator& g) {
        const auto b = size_at(s, 0);
        return Tensors{normal_maps(b, 4, 3, g, 1.0), normal_maps(b, 1, 3, g, 1.0),
                       argmax_labels(normal_maps(b, 2, 3, g, 1.0))};
      })
      .body([](const Tensors& t) { return Tensors{edge_smooth_loss(t[0], t[1], t[2])}; });
  // (batch): student and teacher features of 2 channels at 3 x 3 (x 100), labels of 2 classes.
  const auto distillation_inputs = [](const Json& s, at::Generator& g) {
    const auto b = size_at(s, 0);
    const auto student = normal_maps(b, 2, 3, g, 100), teacher = normal_maps(b, 2, 3, g, 100);
    return Tensors{student, teacher, normal_maps(b, 2, 3, g, 100).argmax(1, /*keepdim=*/true)};
  };
  family.add("ifv_loss", {"ViewAttribute", "Reduce", "ForLoop", "IfElseBranch"}, "SEGMENTBASE2", "")
      .axes({"batch"})
      .cases({{128}, {256}, {512}})
      .backward()
      .grad_inputs({0})
      .host_sync(
          "as the original: torch.any(index) in a Python if, and a boolean mask (loss[index])")
      .written_from(written_from("ifv_loss", "IFVD's CriterionIFV (Wang et al. 2020, \"Intra-class "
                                             "feature variation distillation for semantic "
                                             "segmentation\"): the MSE between student's and "
                                             "teacher's pixel-to-class-centre cosine similarities"))
      .inputs(distillation_inputs)
      .body([](const Tensors& t) { return Tensors{ifv_loss(t[0], t[1], t[2], 2)}; });
  family
      .add("inter_region_loss", {"ViewAttribute", "IfElseBranch", "ForLoop", "Reduce"},
           "SEGMENTBASE2", "")
      .axes({"batch"})
      .cases({{8}, {4}, {6}})
      .backward()
      .grad_inputs({0})
      .written_from(written_from(
          "inter_region_loss",
          "segmentbase2's InterRegion: the MSE between student's and teacher's class-to-class "
          "cosine similarities of their class centres"))
      .inputs(distillation_inputs)
      .body([](const Tensors& t) { return Tensors{inter_region_loss(t[0], t[1], t[2], 2)}; });
  // (batch): scores (x 100), labels and teacher scores of 2 classes at 1 x 1. LongTail-Bench scales
  // the teacher's by 100 too: its probabilities then underflow to 0 and the loss is NaN (0 log 0).
  family
      .add("knowledge_gap_loss",
           {"InputAware", "ViewAttribute", "IfElseBranch", "Reduce", "AdvancedIndexing"},
           "SEGMENTBASE2", "")
      .axes({"batch"})
      .cases({{128}, {256}, {512}})
      .backward()
      .grad_inputs({0})
      .host_sync("as the original: the labelled pixels are chosen with a boolean mask "
                 "(h_soft_total[index])")
      .written_from(written_from(
          "knowledge_gap_loss",
          "segmentbase2's KNOWLEDGEGAPLoss: the teacher's per-pixel KL term, weighted by how much "
          "more probability the teacher gives the true class than the student"))
      .inputs([](const Json& s, at::Generator& g) {
        const auto b = size_at(s, 0);
        const auto scores = normal_maps(b, 2, 1, g, 100);
        const auto labels = argmax_labels(normal_maps(b, 2, 1, g, 100));
        return Tensors{scores, labels, normal_maps(b, 2, 1, g, 1.0)};
      })
      .body([](const Tensors& t) { return Tensors{knowledge_gap_loss(t[0], t[1], t[2])}; });
  // (batch): scores (uniform), labels and teacher scores (normal) of 2 classes at 5 x 5.
  family.add("sce_loss", {"Reduce", "ViewAttribute", "AdvancedIndexing"}, "UNKNOWN", "")
      .axes({"batch"})
      .cases({{4}, {8}, {12}})
      .backward()
      .grad_inputs({0})
      .host_sync(
          "as the original: boolean masks (t_prob[false_index], h_soft_total[valid_index]) and "
          "torch.any in a Python if")
      .written_from(written_from("sce_loss", "SCELoss, a soft cross entropy of distillation: the "
                                             "teacher's probabilities, blended with the "
                                             "smoothed label where the teacher is wrong, against "
                                             "the student's (segmentbase2's loss family)"))
      .inputs([](const Json& s, at::Generator& g) {
        const auto b = size_at(s, 0);
        const auto scores = uniform_maps(b, 2, 5, g);
        const auto labels = argmax_labels(uniform_maps(b, 2, 5, g));
        return Tensors{scores, labels, normal_maps(b, 2, 5, g, 1.0)};
      })
      .body([](const Tensors& t) { return Tensors{sce_loss(t[0], t[1], t[2])}; });
  // (batch): scores and labels of 2 classes at 3 x 3.
  const auto softgauss_inputs = [](const Json& s, at::Generator& g) {
    const auto b = size_at(s, 0);
    return Tensors{uniform_maps(b, 2, 3, g), argmax_labels(uniform_maps(b, 2, 3, g))};
  };
  constexpr const char* k_host_weights = "as the original: labels and predictions are copied to "
                                         "the host for the boundary weights (OpenCV's Canny and "
                                         "distance transform there)";
  family
      .add("get_softgauss_loss_weight",
           {"ForLoop", "ThirdPartyCodes", "AdvancedIndexing", "Reduce"}, "UNKNOWN", "")
      .axes({"batch"})
      .cases({{30}, {40}, {60}})
      .host_sync(k_host_weights)
      .written_from(written_from("get_softgauss_loss_weight",
                                 "boundary-weighted segmentation losses' pixel weights: 1 + a "
                                 "Gaussian of the distance to the nearest label "
                                 "boundary or error; cv2.Canny's edge of a label step written as "
                                 "the pixel before the step, the exact distance "
                                 "transform as cv2.DIST_MASK_PRECISE's"))
      .inputs(softgauss_inputs)
      .body([](const Tensors& t) { return Tensors{softgauss_loss_weight(t[0], t[1])}; });
  family.add("softgbw_loss", {"ForLoop", "Reduce", "ThirdPartyCodes"}, "UNKNOWN", "")
      .axes({"batch"})
      .cases({{4}, {8}, {12}})
      .backward()
      .grad_inputs({0})
      .host_sync(k_host_weights)
      .written_from(written_from("softgbw_loss",
                                 "SoftGBWLoss: the per-pixel cross entropy weighted by "
                                 "get_softgauss_loss_weight, summed per "
                                 "image, the mean over images"))
      .inputs(softgauss_inputs)
      .body([](const Tensors& t) { return Tensors{softgbw_loss(t[0], t[1])}; });
  // (batch): scores (x 100) and labels of 2 classes at 3 x 3.
  family.add("margin_loss", {"ForLoop", "Reduce", "ThirdPartyCodes"}, "SEGMENTBASE2", "")
      .axes({"batch"})
      .cases({{4}, {8}, {12}})
      .backward()
      .grad_inputs({0})
      .host_sync(std::string(k_host_weights) + ", and the logits for an argsort")
      .written_from(written_from("margin_loss", "segmentbase2's MarginLoss: softgbw_loss plus a "
                                                "hinge on the gap between the two highest logits "
                                                "where the prediction is right"))
      .inputs([](const Json& s, at::Generator& g) {
        const auto b = size_at(s, 0);
        return Tensors{normal_maps(b, 2, 3, g, 100), argmax_labels(normal_maps(b, 2, 3, g, 100))};
      })
      .body([](const Tensors& t) { return Tensors{margin_loss(t[0], t[1])}; });
  family
      .add("aggregate", {"ViewAttribute", "Reduce"}, "MMSEG",
           "https://github.com/open-mmlab/mmsegmentation/blob/"
           "504965184c3e6bc9ec43af54237129ef21981a5f/mmseg/ops/encoding.py#L47")
      .axes({"batch", "codewords"})
      .cases({{8, 12}, {4, 8}, {8, 16}})
      .backward()
      .grad_inputs({0, 1, 2})
      .inputs([](const Json& s, at::Generator& g) {
        const auto b = size_at(s, 0), k = size_at(s, 1);
        return Tensors{at::rand({b, 1024, k}, g).softmax(2), at::randn({b, 1024, 64}, g),
                       at::randn({k, 64}, g)};
      })
      .body([](const Tensors& t) { return Tensors{aggregate(t[0], t[1], t[2])}; });
  family
      .add("scaled_l2", {"Reduce", "ViewAttribute"}, "MMSEG",
           "https://github.com/open-mmlab/mmsegmentation/blob/"
           "504965184c3e6bc9ec43af54237129ef21981a5f/mmseg/ops/encoding.py#L34")
      .axes({"pixels", "codewords", "channels"})
      .cases({{892, 52, 32}, {492, 26, 16}, {292, 18, 4}})
      .backward()
      .grad_inputs({0, 1, 2})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({2, size_at(s, 0), size_at(s, 2)}, g),
                       at::randn({size_at(s, 1), size_at(s, 2)}, g), at::rand({size_at(s, 1)}, g)};
      })
      .body([](const Tensors& t) { return Tensors{scaled_l2(t[0], t[1], t[2])}; });
}

} // namespace opbench::samples
