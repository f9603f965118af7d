// More LongTail-Bench samples, written from what each function computes (see their urls).
#include <ATen/core/grad_mode.h>

#include <cmath>

#include "more_ops.hpp"
#include "registry.hpp"
#include "sample_ops.hpp"

namespace opbench::samples {
namespace {
at::Tensor col(const at::Tensor& t, int64_t i) { return t.select(-1, i); }
const auto k_long = at::TensorOptions().dtype(at::kLong);
}  // namespace

at::Tensor aggregate(const at::Tensor& a, const at::Tensor& x, const at::Tensor& c) {
  // E[b, k] = sum_n a[b, n, k] * (x[b, n] - c[k])
  return (a.unsqueeze(3) * (x.unsqueeze(2) - c.unsqueeze(0).unsqueeze(0))).sum(1);
}

at::Tensor scaled_l2(const at::Tensor& x, const at::Tensor& c, const at::Tensor& s) {
  const auto diff = x.unsqueeze(2) - c.view({1, 1, c.size(0), c.size(1)});
  return s.view({1, 1, -1}) * diff.pow(2).sum(3);
}

at::Tensor assign_wrt_overlaps(const at::Tensor& overlaps, double pos_thr, double neg_thr, double min_pos_iou) {
  const int64_t gts = overlaps.size(0), n = overlaps.size(1);
  auto assigned = at::full({n}, -1, overlaps.options().dtype(at::kLong));
  if (gts == 0 || n == 0) return assigned.zero_();
  const auto [max_overlaps, argmax] = overlaps.max(0);
  const auto [gt_max, gt_argmax] = overlaps.max(1);
  assigned.masked_fill_((max_overlaps >= 0) & (max_overlaps < neg_thr), 0);
  const auto pos = max_overlaps >= pos_thr;
  assigned.index_put_({pos}, argmax.index({pos}) + 1);
  // Low-quality matches: each gt keeps the box it overlaps most.
  for (int64_t i = 0; i < gts; ++i) {
    if (gt_max[i].item<double>() >= min_pos_iou) {
      const auto best = overlaps[i] == gt_max[i];
      assigned.masked_fill_(best, i + 1);
    }
  }
  return assigned;
}

at::Tensor bbox2roi(const std::vector<at::Tensor>& boxes) {
  std::vector<at::Tensor> rois;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (boxes[i].size(0) > 0) {
      rois.push_back(at::cat({at::full({boxes[i].size(0), 1}, static_cast<double>(i), boxes[i].options()), boxes[i]}, 1));
    } else {
      rois.push_back(at::zeros({0, 5}, boxes[i].options()));
    }
  }
  return at::cat(rois, 0);
}

at::Tensor bmn_loss(const at::Tensor& pred, const at::Tensor& gt, double threshold, double eps) {
  const auto p = pred.reshape(-1), g = gt.reshape(-1);
  const auto pmask = (g > threshold).to(p.scalar_type());
  const auto num_pos = pmask.sum().clamp_min(1.0);
  const auto ratio = static_cast<double>(p.numel()) / num_pos;
  const auto coef_0 = 0.5 * ratio / (ratio - 1).clamp_min(eps);
  const auto coef_1 = 0.5 * ratio;
  const auto loss = coef_1 * pmask * at::log(p + eps) + coef_0 * (1 - pmask) * at::log(1 - p + eps);
  return -loss.mean();
}

at::Tensor bounded_iou_loss(const at::Tensor& pred, const at::Tensor& target, double beta, double eps) {
  const auto pcx = (col(pred, 0) + col(pred, 2)) * 0.5, pcy = (col(pred, 1) + col(pred, 3)) * 0.5;
  const auto pw = col(pred, 2) - col(pred, 0), ph = col(pred, 3) - col(pred, 1);
  at::Tensor tcx, tcy, tw, th;
  {
    at::NoGradGuard no_grad;
    tcx = (col(target, 0) + col(target, 2)) * 0.5;
    tcy = (col(target, 1) + col(target, 3)) * 0.5;
    tw = col(target, 2) - col(target, 0);
    th = col(target, 3) - col(target, 1);
  }
  const auto dx = tcx - pcx, dy = tcy - pcy;
  const auto loss_dx = 1 - at::clamp_min((tw - 2 * dx.abs()) / (tw + 2 * dx.abs() + eps), 0);
  const auto loss_dy = 1 - at::clamp_min((th - 2 * dy.abs()) / (th + 2 * dy.abs() + eps), 0);
  const auto loss_dw = 1 - at::min(tw / (pw + eps), pw / (tw + eps));
  const auto loss_dh = 1 - at::min(th / (ph + eps), ph / (th + eps));
  const auto loss = at::stack({loss_dx, loss_dy, loss_dw, loss_dh}, -1);
  return at::where(loss < beta, 0.5 * loss * loss / beta, loss - 0.5 * beta).mean();
}

at::Tensor collate_tokens(const std::vector<at::Tensor>& values, std::int64_t pad_idx) {
  int64_t size = 0;
  for (const auto& v : values) size = std::max(size, v.size(0));
  auto out = at::full({static_cast<int64_t>(values.size()), size}, pad_idx, values.front().options());
  for (std::size_t i = 0; i < values.size(); ++i) out[static_cast<int64_t>(i)].narrow(0, 0, values[i].size(0)).copy_(values[i]);
  return out;
}

at::Tensor compute_locations(std::int64_t h, std::int64_t w, std::int64_t stride, const at::TensorOptions& options) {
  const auto xs = at::arange(0, w * stride, stride, options.dtype(at::kFloat));
  const auto ys = at::arange(0, h * stride, stride, options.dtype(at::kFloat));
  const auto grid = at::meshgrid({ys, xs}, "ij");
  return at::stack({grid[1].reshape(-1), grid[0].reshape(-1)}, 1) + static_cast<double>(stride / 2);
}

at::Tensor detr_loss_cardinality(const at::Tensor& logits, const at::Tensor& lengths) {
  const auto no_object = logits.size(-1) - 1;
  const auto card = (logits.argmax(-1) != no_object).sum(1);
  return at::l1_loss(card.to(at::kFloat), lengths.to(at::kFloat));
}

std::vector<at::Tensor> detr_postprocess(const at::Tensor& logits, const at::Tensor& boxes, const at::Tensor& sizes) {
  const auto prob = logits.softmax(-1);
  const auto [scores, labels] = prob.narrow(-1, 0, prob.size(-1) - 1).max(-1);
  const auto xyxy = box_cxcywh_to_xyxy(boxes);
  const auto h = sizes.select(1, 0), w = sizes.select(1, 1);
  const auto scale = at::stack({w, h, w, h}, 1).unsqueeze(1);
  return {scores, labels, xyxy * scale};
}

at::Tensor factorization_machine(const at::Tensor& v) {
  const auto sum = v.sum(1);
  return 0.5 * (sum * sum - (v * v).sum(1)).sum(1, true);
}

at::Tensor softmax_focal_loss(const at::Tensor& logits, const at::Tensor& target, double gamma) {
  const auto ce = at::cross_entropy_loss(logits, target, {}, at::Reduction::None);
  const auto pt = at::exp(-ce);
  return ((1 - pt).pow(gamma) * ce).mean();
}

at::Tensor gaussian_focal_loss(const at::Tensor& pred, const at::Tensor& target, double alpha, double gamma, double eps) {
  const auto pos_weights = target.eq(1).to(pred.scalar_type());
  const auto neg_weights = (1 - target).pow(gamma);
  const auto pos = -(pred + eps).log() * (1 - pred).pow(alpha) * pos_weights;
  const auto neg = -(1 - pred + eps).log() * pred.pow(alpha) * neg_weights;
  return (pos + neg).mean();
}

at::Tensor gen_base_anchors(double base, const at::Tensor& ratios, const at::Tensor& scales) {
  const auto h_ratios = ratios.sqrt(), w_ratios = 1 / h_ratios;
  const auto ws = (base * w_ratios.unsqueeze(1) * scales.unsqueeze(0)).reshape(-1);
  const auto hs = (base * h_ratios.unsqueeze(1) * scales.unsqueeze(0)).reshape(-1);
  return at::stack({-0.5 * ws, -0.5 * hs, 0.5 * ws, 0.5 * hs}, -1);
}

std::vector<at::Tensor> greedy_decoder(const at::Tensor& output, std::int64_t blank) {
  const auto best = output.argmax(2);
  std::vector<at::Tensor> decoded;
  for (int64_t b = 0; b < best.size(0); ++b) {
    const auto seq = best[b];
    auto keep = seq != blank;
    // Collapse repeats: keep a label only where it differs from the one before.
    keep.narrow(0, 1, seq.size(0) - 1).logical_and_(seq.narrow(0, 1, seq.size(0) - 1) != seq.narrow(0, 0, seq.size(0) - 1));
    decoded.push_back(seq.index({keep}));
  }
  return decoded;
}

at::Tensor index2d(const at::Tensor& src, const at::Tensor& idx) {
  const auto offs = at::arange(idx.size(0), idx.options()).unsqueeze(1) * src.size(1);
  return src.reshape(-1).index({(idx + offs).reshape(-1)}).view(idx.sizes());
}

at::Tensor intersect(const at::Tensor& a, const at::Tensor& b) {
  const auto max_xy = at::min(a.narrow(1, 2, 2).unsqueeze(1), b.narrow(1, 2, 2).unsqueeze(0));
  const auto min_xy = at::max(a.narrow(1, 0, 2).unsqueeze(1), b.narrow(1, 0, 2).unsqueeze(0));
  const auto inter = (max_xy - min_xy).clamp_min(0);
  return inter.select(2, 0) * inter.select(2, 1);
}

at::Tensor jaccard(const at::Tensor& a, const at::Tensor& b) {
  const auto inter = intersect(a, b);
  const auto area_a = box_area(a).unsqueeze(1), area_b = box_area(b).unsqueeze(0);
  return inter / (area_a + area_b - inter);
}

at::Tensor joints_mse_loss(const at::Tensor& output, const at::Tensor& target, const at::Tensor& weight) {
  const int64_t b = output.size(0), joints = output.size(1);
  const auto pred = output.reshape({b, joints, -1}).split(1, 1), gt = target.reshape({b, joints, -1}).split(1, 1);
  at::Tensor loss = at::zeros({}, output.options());
  for (int64_t j = 0; j < joints; ++j) {
    const auto w = weight.select(1, j);
    loss = loss + 0.5 * at::mse_loss(pred[j].squeeze(1) * w, gt[j].squeeze(1) * w);
  }
  return loss / static_cast<double>(joints);
}

at::Tensor l2_loss(const at::Tensor& pred, const at::Tensor& target) { return (pred - target).pow(2).mean(); }

at::Tensor legacy_bbox2delta(const at::Tensor& p, const at::Tensor& g) {
  const auto pw = col(p, 2) - col(p, 0) + 1, ph = col(p, 3) - col(p, 1) + 1;
  const auto px = col(p, 0) + 0.5 * (pw - 1), py = col(p, 1) + 0.5 * (ph - 1);
  const auto gw = col(g, 2) - col(g, 0) + 1, gh = col(g, 3) - col(g, 1) + 1;
  const auto gx = col(g, 0) + 0.5 * (gw - 1), gy = col(g, 1) + 0.5 * (gh - 1);
  return at::stack({(gx - px) / pw, (gy - py) / ph, at::log(gw / pw), at::log(gh / ph)}, -1);
}

at::Tensor legacy_delta2bbox(const at::Tensor& r, const at::Tensor& d) {
  const auto pw = col(r, 2) - col(r, 0) + 1, ph = col(r, 3) - col(r, 1) + 1;
  const auto px = col(r, 0) + 0.5 * (pw - 1), py = col(r, 1) + 0.5 * (ph - 1);
  const auto gw = pw * col(d, 2).exp(), gh = ph * col(d, 3).exp();
  const auto gx = px + pw * col(d, 0), gy = py + ph * col(d, 1);
  return at::stack({gx - 0.5 * (gw - 1), gy - 0.5 * (gh - 1), gx + 0.5 * (gw - 1), gy + 0.5 * (gh - 1)}, -1);
}

at::Tensor mmdetection_accuracy(const at::Tensor& pred, const at::Tensor& target, const std::vector<std::int64_t>& topk) {
  const int64_t maxk = *std::max_element(topk.begin(), topk.end());
  const auto top = std::get<1>(pred.topk(maxk, 1)).t();
  const auto correct = top.eq(target.view({1, -1}).expand_as(top));
  std::vector<at::Tensor> res;
  for (int64_t k : topk) {
    res.push_back(correct.narrow(0, 0, k).reshape(-1).to(at::kFloat).sum() * (100.0 / static_cast<double>(pred.size(0))));
  }
  return at::stack(res);
}

at::Tensor partialconv2d(const at::Tensor& input, const at::Tensor& mask, const at::Tensor& weight, const at::Tensor& bias) {
  const int64_t k = weight.size(2) * weight.size(3);
  at::Tensor updated, ratio;
  {
    at::NoGradGuard no_grad;
    updated = at::conv2d(mask, at::ones({1, 1, weight.size(2), weight.size(3)}, mask.options()));
    ratio = static_cast<double>(k) / (updated + 1e-8);
    updated = updated.clamp(0, 1);
    ratio = ratio * updated;
  }
  const auto raw = at::conv2d(input * mask, weight, bias);
  const auto b = bias.view({1, -1, 1, 1});
  return ((raw - b) * ratio + b) * updated;
}

at::Tensor position_embedding_learned(const at::Tensor& x, const at::Tensor& row, const at::Tensor& col_embed) {
  const int64_t h = x.size(-2), w = x.size(-1);
  const auto x_emb = col_embed.narrow(0, 0, w), y_emb = row.narrow(0, 0, h);
  const auto pos = at::cat({x_emb.unsqueeze(0).expand({h, w, x_emb.size(1)}), y_emb.unsqueeze(1).expand({h, w, y_emb.size(1)})}, -1);
  return pos.permute({2, 0, 1}).unsqueeze(0).expand({x.size(0), pos.size(2), h, w});
}

at::Tensor position_embedding_sine(const at::Tensor& mask, std::int64_t npf, double temperature) {
  const auto not_mask = mask.logical_not().to(at::kFloat);
  auto y = not_mask.cumsum(1), x = not_mask.cumsum(2);
  const double eps = 1e-6, scale = 2 * M_PI;
  y = y / (y.narrow(1, y.size(1) - 1, 1) + eps) * scale;
  x = x / (x.narrow(2, x.size(2) - 1, 1) + eps) * scale;
  const auto i = at::arange(npf, mask.options().dtype(at::kFloat));
  const auto dim_t = at::pow(temperature, 2 * at::floor(i / 2) / static_cast<double>(npf));
  auto interleave = [](const at::Tensor& p) {
    const auto even = p.slice(3, 0, p.size(3), 2).sin(), odd = p.slice(3, 1, p.size(3), 2).cos();
    return at::stack({even, odd}, 4).flatten(3);
  };
  const auto pos_x = interleave(x.unsqueeze(-1) / dim_t), pos_y = interleave(y.unsqueeze(-1) / dim_t);
  return at::cat({pos_y, pos_x}, 3).permute({0, 3, 1, 2});
}

std::vector<at::Tensor> random_sampler(const at::Tensor& assigned, std::int64_t num, double pos_fraction) {
  const auto pos = at::nonzero(assigned > 0).view(-1);
  const int64_t want_pos = static_cast<int64_t>(static_cast<double>(num) * pos_fraction);
  const auto pos_take = pos.index({at::randperm(pos.size(0), assigned.options().dtype(at::kLong)).narrow(0, 0, std::min(want_pos, pos.size(0)))});
  const auto neg = at::nonzero(assigned == 0).view(-1);
  const int64_t want_neg = num - pos_take.size(0);
  const auto neg_take = neg.index({at::randperm(neg.size(0), assigned.options().dtype(at::kLong)).narrow(0, 0, std::min(want_neg, neg.size(0)))});
  return {pos_take, neg_take};
}

std::vector<at::Tensor> sanitize_coordinates(const at::Tensor& x1, const at::Tensor& x2, double img_size, double padding) {
  const auto a = x1 * img_size, b = x2 * img_size;
  return {at::min(a, b).sub(padding).clamp_min(0), at::max(a, b).add(padding).clamp_max(img_size)};
}

at::Tensor smooth_step(const at::Tensor& x, double gamma) {
  const auto cubic = -2.0 / std::pow(gamma, 3) * x.pow(3) + 3.0 / (2 * gamma) * x + 0.5;
  return at::where(x <= -gamma / 2, at::zeros_like(x), at::where(x >= gamma / 2, at::ones_like(x), cubic));
}

at::Tensor split_heads_qkv(const at::Tensor& x, std::int64_t heads) {
  return x.reshape({x.size(0), x.size(1), heads, x.size(2) / heads}).permute({0, 2, 1, 3});
}

at::Tensor valid_flags(std::int64_t h, std::int64_t w, std::int64_t vh, std::int64_t vw, std::int64_t num,
                       const at::TensorOptions& options) {
  auto vx = at::zeros({w}, options.dtype(at::kBool)), vy = at::zeros({h}, options.dtype(at::kBool));
  vx.narrow(0, 0, vw).fill_(true);
  vy.narrow(0, 0, vh).fill_(true);
  const auto valid = vy.view({h, 1}).logical_and(vx.view({1, w})).reshape(-1);
  return valid.unsqueeze(1).expand({valid.size(0), num}).reshape(-1);
}

at::Tensor varifocal_loss(const at::Tensor& logits, const at::Tensor& target, double alpha, double gamma) {
  const auto p = logits.sigmoid();
  const auto pos = (target > 0).to(p.scalar_type());
  const auto weight = target * pos + alpha * (p - target).abs().pow(gamma) * (1 - pos);
  return (at::binary_cross_entropy_with_logits(logits, target, {}, {}, at::Reduction::None) * weight).mean();
}

at::Tensor word2vec_loss(const at::Tensor& input, const at::Tensor& true_word, const at::Tensor& negatives) {
  const auto pos = (input * true_word).sum(1);
  const auto neg = at::bmm(negatives, input.unsqueeze(2)).squeeze(2);
  return (-at::log_sigmoid(pos) - at::log_sigmoid(-neg).sum(1)).mean();
}

at::Tensor conv_relu(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  return at::relu(at::conv2d(x, w, b, 1, 1));
}

at::Tensor conv_bn(const at::Tensor& x, const at::Tensor& w, const at::Tensor& gamma, const at::Tensor& beta,
                   const at::Tensor& mean, const at::Tensor& var) {
  return at::batch_norm(at::conv2d(x, w, {}, 1, 1), gamma, beta, mean, var, false, 0.1, 1e-5, true);
}

at::Tensor linear_gelu(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  return at::gelu(at::linear(x, w, b));
}

namespace {

using Maker = std::function<Tensors(const Json&, at::Generator&)>;
using Body = std::function<Tensors(const Tensors&)>;

const std::string k_gh = "https://github.com/";
const std::string k_mmdet = k_gh + "open-mmlab/mmdetection/blob/c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/";
const std::string k_detr = k_gh + "facebookresearch/detr/blob/14602a71482082746399dd6bc5712a9aa8f804d2/models/";
const std::string k_yolact = k_gh + "dbolya/yolact/blob/57b8f2d95e62e2e649b382f516ab41f949b57239/";

Json sz(std::vector<std::int64_t> s) { return {{"sizes", s}}; }
std::int64_t at_(const Json& s, std::size_t i) { return s.at(i).get<std::int64_t>(); }
at::Tensor randn(std::vector<std::int64_t> shape, at::Generator& g) { return at::randn(shape, g); }
at::Tensor rand(std::vector<std::int64_t> shape, at::Generator& g) { return at::rand(shape, g); }
at::Tensor randint(std::int64_t high, std::vector<std::int64_t> shape, at::Generator& g) {
  return at::randint(0, high, shape, g, k_long);
}

void reg(std::vector<Sample>& out, const char* name, std::vector<std::string> tags, const char* source,
         std::string url, std::vector<Json> cases, bool backward, Maker make, Body body) {
  out.push_back({{name, std::move(tags), source, std::move(url), std::move(cases), backward, "more_samples.cpp"},
                 std::move(make), std::move(body)});
}

}  // namespace

void register_more_samples(std::vector<Sample>& out) {
  reg(out, "aggregate", {"ViewAttribute", "Reduce"}, "MMSEG",
      k_gh + "open-mmlab/mmsegmentation/blob/504965184c3e6bc9ec43af54237129ef21981a5f/mmseg/ops/encoding.py#L47",
      {sz({8, 12}), sz({4, 8}), sz({8, 16})}, true,
      [](const Json& s, at::Generator& g) {
        const auto b = at_(s, 0), k = at_(s, 1);
        return Tensors{rand({b, 1024, k}, g).softmax(2), randn({b, 1024, 64}, g), randn({k, 64}, g)};
      },
      [](const Tensors& t) { return Tensors{aggregate(t[0], t[1], t[2])}; });
  out.back().info.axes = {"batch", "codewords"};
  reg(out, "scaled_l2", {"Reduce", "ViewAttribute"}, "MMSEG",
      k_gh + "open-mmlab/mmsegmentation/blob/504965184c3e6bc9ec43af54237129ef21981a5f/mmseg/ops/encoding.py#L34",
      {sz({892, 52, 32}), sz({492, 26, 16}), sz({292, 18, 4})}, true,
      [](const Json& s, at::Generator& g) {
        return Tensors{randn({2, at_(s, 0), at_(s, 2)}, g), randn({at_(s, 1), at_(s, 2)}, g), rand({at_(s, 1)}, g)};
      },
      [](const Tensors& t) { return Tensors{scaled_l2(t[0], t[1], t[2])}; });
  out.back().info.axes = {"pixels", "codewords", "channels"};
  reg(out, "assign_wrt_overlaps", {"IfElseBranch", "AdvancedIndexing", "ForLoop", "InputAware", "Customized"}, "MMDET",
      k_mmdet + "core/bbox/assigners/max_iou_assigner.py#L128", {sz({4, 4})}, false,
      [](const Json& s, at::Generator& g) { return Tensors{rand({at_(s, 0), at_(s, 1) * 256}, g)}; },
      [](const Tensors& t) { return Tensors{assign_wrt_overlaps(t[0])}; });
  out.back().info.host_sync =
      "as the original: a Python `if` on each gt's best overlap, and boolean-mask assignment";
  out.back().info.axes = {"gts", "proposals_x256"};
  reg(out, "bbox2roi", {"ForLoop", "IfElseBranch"}, "UNKNOWN", "", {sz({32}), sz({64}), sz({128})}, false,
      [](const Json& s, at::Generator& g) {
        Tensors boxes;
        for (int i = 0; i < 4; ++i) boxes.push_back(random_boxes(at_(s, 0), g));
        return boxes;
      },
      [](const Tensors& t) { return Tensors{bbox2roi(t)}; });
  out.back().info.written_from = "MMDetection's bbox2roi (mmdet/core/bbox/transforms.py): each image's boxes prefixed with its index, concatenated";
  out.back().info.axes = {"boxes_per_image"};
  reg(out, "bmn_loss", {"ViewAttribute", "Reduce"}, "MMACTION2",
      k_gh + "open-mmlab/mmaction2/blob/d5ab34805fe6a02bb98e4af158626a21790b6974/mmaction/models/losses/bmn_loss.py#L11",
      {sz({8, 32}), sz({16, 16}), sz({16, 8})}, true,
      [](const Json& s, at::Generator& g) {
        return Tensors{rand({at_(s, 0), 100, at_(s, 1)}, g) * 0.98 + 0.01, rand({at_(s, 0), 100, at_(s, 1)}, g)};
      },
      [](const Tensors& t) { return Tensors{bmn_loss(t[0], t[1])}; });
  out.back().info.axes = {"batch", "temporal_scale"};
  reg(out, "bounded_iou_loss", {"ViewAttribute"}, "MMDET", k_mmdet + "models/losses/iou_loss.py#L55",
      {sz({4}), sz({8}), sz({12})}, true,
      [](const Json& s, at::Generator& g) {
        const auto n = at_(s, 0) * 256;
        const auto target = random_boxes(n, g);
        return Tensors{target + at::rand({n, 4}, g), target};
      },
      [](const Tensors& t) { return Tensors{bounded_iou_loss(t[0], t[1])}; });
  out.back().info.axes = {"boxes_x256"};
  reg(out, "collate_tokens", {"ForLoop", "IfElseBranch", "AdvancedIndexing"}, "FAIRSEQ",
      k_gh + "facebookresearch/fairseq/blob/b5a039c292facba9c73f59ff34621ec131d82341/fairseq/data/data_utils.py#L37",
      {sz({8, 12, 12}), sz({16, 16, 16}), sz({32, 8, 8})}, false,
      [](const Json& s, at::Generator& g) {
        Tensors values;
        const auto lengths = at::randint(1, at_(s, 1) + 1, {at_(s, 0)}, g, k_long);
        for (int64_t i = 0; i < at_(s, 0); ++i) values.push_back(randint(1000, {lengths[i].item<int64_t>()}, g) + 2);
        return values;
      },
      [](const Tensors& t) { return Tensors{collate_tokens(t, 1)}; });
  out.back().info.axes = {"sequences", "max_length", "unused"};
  reg(out, "compute_locations", {"ViewAttribute", "IfElseBranch"}, "POD", "", {sz({3000}), sz({2000}), sz({4000})}, false,
      // The original's `device` argument: an empty tensor on the case's device; the feature-map
      // size stays on the host (a Python int there).
      [](const Json& s, at::Generator&) { return Tensors{at::empty({0}), at::full({2}, at_(s, 0) / 50, k_long)}; },
      [](const Tensors& t) { return Tensors{compute_locations(t[1][0].item<int64_t>(), 50, 8, t[0].options())}; });
  out.back().info.host_inputs = 1;
  out.back().info.written_from = "FCOS's compute_locations_per_level (the grid of feature-map cell centres in image pixels), as POD uses it";
  out.back().info.axes = {"locations"};
  reg(out, "detr_loss_cardinality", {"BuiltInDataStructure", "ForLoop", "Reduce", "ViewAttribute"}, "SINGLE_REPO",
      k_detr + "detr.py#L130", {sz({100})}, false,
      [](const Json& s, at::Generator& g) { return Tensors{randn({8, at_(s, 0), 92}, g), randint(20, {8}, g)}; },
      [](const Tensors& t) { return Tensors{detr_loss_cardinality(t[0], t[1])}; });
  out.back().info.axes = {"queries"};
  reg(out, "detr_postprocess", {"BuiltInDataStructure", "ViewAttribute"}, "SINGLE_REPO", k_detr + "detr.py#L258",
      {sz({8, 10})}, false,
      [](const Json& s, at::Generator& g) {
        const auto b = at_(s, 0);
        return Tensors{randn({b, 100, at_(s, 1) + 1}, g), rand({b, 100, 4}, g) * 0.5 + 0.25,
                       at::full({b, 2}, 800.0)};
      },
      [](const Tensors& t) { return detr_postprocess(t[0], t[1], t[2]); });
  out.back().info.axes = {"batch", "classes"};
  reg(out, "factorization_machine", {"InputAware", "Reduce", "Broadcast"}, "PADDLEREC",
      k_gh + "PaddlePaddle/PaddleRec/blob/0aabcd30d5678d05181e6edea47c7948ef7baf12/models/rank/fm/net.py#L21",
      {sz({12, 1})}, true,
      [](const Json& s, at::Generator& g) { return Tensors{randn({512, 26, at_(s, 0)}, g)}; },
      [](const Tensors& t) { return Tensors{factorization_machine(t[0])}; });
  out.back().info.axes = {"embedding_dim", "unused"};
  reg(out, "focal_loss", {"Reduce"}, "SEGMENTBASE2", "", {sz({128}), sz({256}), sz({512})}, true,
      [](const Json& s, at::Generator& g) { return Tensors{randn({at_(s, 0) * 16, 19}, g), randint(19, {at_(s, 0) * 16}, g)}; },
      [](const Tensors& t) { return Tensors{softmax_focal_loss(t[0], t[1])}; });
  out.back().info.written_from = "the softmax focal loss of Lin et al. 2017 (RetinaNet) over class scores";
  out.back().info.axes = {"pixels_x16"};
  reg(out, "gaussian_focal_loss", {}, "MMDET",
      k_gh + "open-mmlab/mmdetection/blob/bde7b4b7eea9dd6ee91a486c6996b2d68662366d/mmdet/models/losses/gaussian_focal_loss.py#L11",
      {sz({128, 4}), sz({256, 4}), sz({512, 4})}, true,
      [](const Json& s, at::Generator& g) {
        auto target = rand({at_(s, 0), at_(s, 1), 32}, g);
        target.select(2, 0).fill_(1.0);  // gaussian peaks
        return Tensors{rand({at_(s, 0), at_(s, 1), 32}, g) * 0.98 + 0.01, target};
      },
      [](const Tensors& t) { return Tensors{gaussian_focal_loss(t[0], t[1])}; });
  out.back().info.axes = {"rows", "columns"};
  reg(out, "gen_base_anchors", {"ViewAttribute"}, "MMDET",
      k_gh + "open-mmlab/mmdetection/blob/4bd4ace53a626659070204236da5b8e14ae9cd08/mmdet/core/anchor/anchor_generator.py#L131",
      {sz({4, 3, 1}), sz({8, 6, 2}), sz({16, 12, 4})}, false,
      [](const Json& s, at::Generator&) {
        return Tensors{at::linspace(0.5, 2.0, at_(s, 1)), at::linspace(1.0, 2.0, at_(s, 2)), at::full({1}, static_cast<double>(at_(s, 0)))};
      },
      [](const Tensors& t) { return Tensors{gen_base_anchors(t[2].item<double>(), t[0], t[1])}; });
  out.back().info.host_inputs = 1;
  out.back().info.axes = {"base_size", "ratios", "scales"};
  reg(out, "greedy_decoder", {"ForLoop", "Reduce", "AdvancedIndexing", "BuiltInDataStructure"}, "ASSEMBLYAI",
      "https://colab.research.google.com/drive/1IPpwx4rX32rqHKpLz7dc8sOKspUa-YKO#scrollTo=RVJs4Bk8FjjO",
      {sz({12, 12, 12}), sz({16, 16, 16}), sz({32, 32, 32})}, false,
      [](const Json& s, at::Generator& g) { return Tensors{randn({at_(s, 0), at_(s, 1) * 8, at_(s, 2)}, g).log_softmax(2)}; },
      [](const Tensors& t) { return greedy_decoder(t[0], t[0].size(2) - 1); });
  out.back().info.host_sync = "as the original: each decoded sequence's length depends on the data (boolean mask)";
  out.back().info.axes = {"batch", "time_steps_x8", "classes"};
  reg(out, "index2d", {"ViewAttribute"}, "SINGLE_REPO", k_yolact + "layers/box_utils.py#L376", {sz({10}), sz({20}), sz({30})}, false,
      [](const Json& s, at::Generator& g) { return Tensors{randn({at_(s, 0) * 10, 100}, g), randint(100, {at_(s, 0) * 10, 8}, g)}; },
      [](const Tensors& t) { return Tensors{index2d(t[0], t[1])}; });
  out.back().info.axes = {"rows_x10"};
  reg(out, "intersect", {"Reduce", "ViewAttribute"}, "SINGLE_REPO", k_yolact + "scripts/optimize_bboxes.py#L24",
      {sz({128}), sz({256}), sz({512})}, false,
      [](const Json& s, at::Generator& g) { return Tensors{random_boxes(at_(s, 0), g), random_boxes(at_(s, 0), g)}; },
      [](const Tensors& t) { return Tensors{intersect(t[0], t[1])}; });
  out.back().info.axes = {"boxes"};
  reg(out, "jaccard", {"Reduce", "ViewAttribute"}, "SINGLE_REPO", k_yolact + "scripts/optimize_bboxes.py#L45",
      {sz({300}), sz({600}), sz({800})}, false,
      [](const Json& s, at::Generator& g) { return Tensors{random_boxes(at_(s, 0), g), random_boxes(at_(s, 0), g)}; },
      [](const Tensors& t) { return Tensors{jaccard(t[0], t[1])}; });
  out.back().info.axes = {"boxes"};
  reg(out, "joints_mse_loss", {"ViewAttribute", "ForLoop", "IfElseBranch", "Reduce"}, "MMPOSE",
      k_gh + "open-mmlab/mmpose/blob/c85159da60f25bc6bbab763c37c2be1e49e4052f/mmpose/models/losses/mse_loss.py#L9",
      {sz({300}), sz({600}), sz({800})}, true,
      [](const Json& s, at::Generator& g) {
        const auto hw = at_(s, 0) / 10;
        return Tensors{rand({4, 17, hw, hw}, g), rand({4, 17, hw, hw}, g), rand({4, 17, 1}, g)};
      },
      [](const Tensors& t) { return Tensors{joints_mse_loss(t[0], t[1], t[2])}; });
  out.back().info.axes = {"heatmap_side_x10"};
  reg(out, "l2_loss", {"Reduce"}, "SEGMENTBASE2", "", {sz({16, 32}), sz({16, 16}), sz({32, 32})}, true,
      [](const Json& s, at::Generator& g) {
        return Tensors{randn({at_(s, 0), at_(s, 1), 64}, g), randn({at_(s, 0), at_(s, 1), 64}, g)};
      },
      [](const Tensors& t) { return Tensors{l2_loss(t[0], t[1])}; });
  out.back().info.written_from = "the mean squared difference of prediction and target";
  out.back().info.axes = {"batch", "positions"};
  reg(out, "legacy_bbox2delta", {"ViewAttribute"}, "MMDET",
      k_gh + "open-mmlab/mmdetection/blob/bde7b4b7eea9dd6ee91a486c6996b2d68662366d/mmdet/core/bbox/coder/legacy_delta_xywh_bbox_coder.py#L85",
      {sz({3000}), sz({2000}), sz({1000})}, true,
      [](const Json& s, at::Generator& g) { return Tensors{random_boxes(at_(s, 0), g), random_boxes(at_(s, 0), g)}; },
      [](const Tensors& t) { return Tensors{legacy_bbox2delta(t[0], t[1])}; });
  out.back().info.axes = {"boxes"};
  reg(out, "legacy_delta2bbox", {"ViewAttribute", "IfElseBranch"}, "MMDET",
      "https://github.com/open-mmlab/mmdetection/blob/bde7b4b7eea9dd6ee91a486c6996b2d68662366d/mmdet/core/bbox/coder/legacy_delta_xywh_bbox_coder.py#L134",
      {sz({3000, 4}), sz({2000, 4}), sz({1000, 4})}, true,
      [](const Json& s, at::Generator& g) { return Tensors{random_boxes(at_(s, 0), g), randn({at_(s, 0), 4}, g) * 0.2}; },
      [](const Tensors& t) { return Tensors{legacy_delta2bbox(t[0], t[1])}; });
  out.back().info.axes = {"boxes", "coordinates"};
  reg(out, "mmdetection_accuracy", {"ForLoop", "IfElseBranch", "ViewAttribute"}, "MMDET",
      k_gh + "open-mmlab/mmdetection/blob/bde7b4b7eea9dd6ee91a486c6996b2d68662366d/mmdet/models/losses/accuracy.py#L7",
      {sz({32, 1000}), sz({16, 2000}), sz({8, 3000})}, false,
      [](const Json& s, at::Generator& g) { return Tensors{randn({at_(s, 0), at_(s, 1)}, g), randint(at_(s, 1), {at_(s, 0)}, g)}; },
      [](const Tensors& t) { return Tensors{mmdetection_accuracy(t[0], t[1], {1, 5})}; });
  out.back().info.axes = {"samples", "classes"};
  reg(out, "partialconv2d", {"ThirdPartyCodes", "IfElseBranch"}, "MMEDIT",
      k_gh + "open-mmlab/mmediting/blob/ce2a70f1321907d1451a376637cf56be76168a67/mmedit/models/common/partial_conv.py#L10",
      {sz({100, 3}), sz({200, 3})}, true,
      [](const Json& s, at::Generator& g) {
        const auto hw = at_(s, 0), c = at_(s, 1);
        return Tensors{randn({1, c, hw, hw}, g), at::randint(0, 2, {1, 1, hw, hw}, g, k_long).to(at::kFloat),
                       randn({16, c, 3, 3}, g), randn({16}, g)};
      },
      [](const Tensors& t) { return Tensors{partialconv2d(t[0], t[1], t[2], t[3])}; });
  out.back().info.axes = {"side", "channels"};
  reg(out, "position_embedding_learned", {"Customized", "ViewAttribute"}, "SINGLE_REPO", k_detr + "position_encoding.py#L51",
      {sz({4, 2048, 24, 37})}, true,
      [](const Json& s, at::Generator& g) {
        return Tensors{randn({at_(s, 0), 8, at_(s, 2), at_(s, 3)}, g), rand({50, 128}, g), rand({50, 128}, g)};
      },
      [](const Tensors& t) { return Tensors{position_embedding_learned(t[0], t[1], t[2])}; });
  out.back().info.axes = {"batch", "channels_unused", "height", "width"};
  reg(out, "position_embedding_sine", {"Customized", "Reduce", "ViewAttribute", "IfElseBranch"}, "SINGLE_REPO",
      k_detr + "position_encoding.py#L12", {sz({4}), sz({6}), sz({8})}, false,
      [](const Json& s, at::Generator& g) { return Tensors{at::randint(0, 2, {at_(s, 0), 25, 34}, g, k_long).lt(1)}; },
      [](const Tensors& t) { return Tensors{position_embedding_sine(t[0])}; });
  out.back().info.axes = {"batch"};
  reg(out, "random_sampler", {"IfElseBranch", "AdvancedIndexing", "InputAware", "ViewAttribute"}, "MMDET",
      k_mmdet + "core/bbox/samplers/random_sampler.py#L9", {sz({4})}, false,
      [](const Json& s, at::Generator& g) { return Tensors{randint(at_(s, 0) + 1, {4000}, g)}; },
      [](const Tensors& t) { return random_sampler(t[0], 512, 0.25); });
  out.back().info.host_sync = "as the original: torch.nonzero picks the positive and negative boxes";
  out.back().info.axes = {"classes"};
  reg(out, "sanitize_coordinates", {"Reduce", "IfElseBranch"}, "MMDET", k_mmdet + "models/dense_heads/yolact_head.py#L876",
      {sz({300, 100}), sz({600, 100}), sz({800, 100})}, false,
      [](const Json& s, at::Generator& g) { return Tensors{rand({at_(s, 0), at_(s, 1)}, g), rand({at_(s, 0), at_(s, 1)}, g)}; },
      [](const Tensors& t) { return sanitize_coordinates(t[0], t[1], 550, 1); });
  out.back().info.axes = {"rows", "columns"};
  reg(out, "smooth_step", {"Broadcast"}, "PADDLEREC",
      k_gh + "PaddlePaddle/PaddleRec/blob/3b416accde4366e26f55f8d27f2453704a146bad/models/multitask/dselect_k/net.py#L121",
      {sz({12, 12, 12}), sz({16, 16, 16}), sz({32, 32, 32})}, true,
      [](const Json& s, at::Generator& g) { return Tensors{randn({at_(s, 0), at_(s, 1), at_(s, 2)}, g)}; },
      [](const Tensors& t) { return Tensors{smooth_step(t[0])}; });
  out.back().info.axes = {"batch", "rows", "columns"};
  reg(out, "split_heads_qkv", {"InputAware", "ViewAttribute"}, "PADDLEREC",
      k_gh + "PaddlePaddle/PaddleRec/blob/1f1d93eba5503bec87c11acc8203c2266c63c285/models/rank/bst/net.py#L339",
      {sz({12, 12})}, true,
      [](const Json& s, at::Generator& g) { return Tensors{randn({128, at_(s, 0), at_(s, 1) * 8}, g)}; },
      [](const Tensors& t) { return Tensors{split_heads_qkv(t[0], 8)}; });
  out.back().info.axes = {"sequence", "head_width"};
  reg(out, "valid_flags", {"AdvancedIndexing", "ViewAttribute"}, "MMDET", k_mmdet + "core/anchor/point_generator.py#L30",
      {sz({160, 120, 3}), sz({320, 240, 6}), sz({480, 360, 9})}, false,
      // The original's `device` argument: an empty tensor on the case's device; the sizes stay
      // on the host (Python ints there).
      [](const Json& s, at::Generator&) { return Tensors{at::empty({0}), at::tensor({at_(s, 0), at_(s, 1), at_(s, 2)}, k_long)}; },
      [](const Tensors& t) {
        const auto h = t[1][0].item<int64_t>(), w = t[1][1].item<int64_t>();
        return Tensors{valid_flags(h, w, h - 3, w - 5, t[1][2].item<int64_t>(), t[0].options())};
      });
  out.back().info.host_inputs = 1;
  out.back().info.axes = {"feature_height", "feature_width", "anchors"};
  reg(out, "varifocal_loss", {"Reduce", "IfElseBranch"}, "MMDET", k_mmdet + "models/losses/varifocal_loss.py#L11",
      {sz({128, 4}), sz({256, 4}), sz({512, 4})}, true,
      [](const Json& s, at::Generator& g) {
        const auto shape = std::vector<int64_t>{at_(s, 0) * 16, 80};
        return Tensors{randn(shape, g), rand(shape, g) * (rand(shape, g) > 0.9).to(at::kFloat)};
      },
      [](const Tensors& t) { return Tensors{varifocal_loss(t[0], t[1])}; });
  out.back().info.axes = {"points_x16", "unused"};
  reg(out, "word2vec", {"InputAware", "Broadcast"}, "PADDLEREC",
      k_gh + "facebookresearch/fairseq/blob/b5a039c292facba9c73f59ff34621ec131d82341/fairseq/utils.py#L256",
      {sz({24, 1})}, true,
      [](const Json& s, at::Generator& g) {
        return Tensors{randn({512, 64}, g) * 0.1, randn({512, 64}, g) * 0.1, randn({512, at_(s, 0), 64}, g) * 0.1};
      },
      [](const Tensors& t) { return Tensors{word2vec_loss(t[0], t[1], t[2])}; });
  out.back().info.axes = {"negatives", "unused"};
  // Fused patterns (MXNet operator-benchmark design): ResNet-50 layer1 3x3 conv, BERT FFN.
  auto conv_inputs = [](const Json& s, at::Generator& g) {
    return Tensors{randn({at_(s, 0), 64, 56, 56}, g), randn({64, 64, 3, 3}, g) * 0.05, randn({64}, g),
                   rand({64}, g) + 0.5, randn({64}, g), randn({64}, g), rand({64}, g) + 0.5};
  };
  const std::vector<Json> conv_cases{sz({1}), sz({8})};
  reg(out, "conv_relu", {"Fused"}, "MXNET_DESIGN", "", conv_cases, true, conv_inputs,
      [](const Tensors& t) { return Tensors{conv_relu(t[0], t[1], t[2])}; });
  out.back().info.written_from = "the fused-operator patterns of MXNet's operator-benchmark design (convolution then ReLU)";
  out.back().info.axes = {"batch"};
  reg(out, "conv_bn", {"Fused"}, "MXNET_DESIGN", "", conv_cases, true, conv_inputs,
      [](const Tensors& t) { return Tensors{conv_bn(t[0], t[1], t[3], t[4], t[5], t[6])}; });
  out.back().info.written_from = "the fused-operator patterns of MXNet's operator-benchmark design (convolution then batch norm)";
  out.back().info.axes = {"batch"};
  reg(out, "conv_bn_relu", {"Fused"}, "MXNET_DESIGN", "", conv_cases, true, conv_inputs,
      [](const Tensors& t) { return Tensors{at::relu(conv_bn(t[0], t[1], t[3], t[4], t[5], t[6]))}; });
  out.back().info.written_from = "the fused-operator patterns of MXNet's operator-benchmark design (convolution, batch norm, ReLU)";
  out.back().info.axes = {"batch"};
  reg(out, "linear_gelu", {"Fused"}, "MXNET_DESIGN", "", {sz({1024, 768, 3072})}, true,
      [](const Json& s, at::Generator& g) {
        return Tensors{randn({at_(s, 0), at_(s, 1)}, g), randn({at_(s, 2), at_(s, 1)}, g) * 0.02, randn({at_(s, 2)}, g)};
      },
      [](const Tensors& t) { return Tensors{linear_gelu(t[0], t[1], t[2])}; });
  out.back().info.written_from = "the fused-operator patterns of MXNet's operator-benchmark design (linear then GELU)";
  out.back().info.axes = {"tokens", "in_features", "out_features"};
}

}  // namespace opbench::samples
