// YOLACT's box utilities and mask losses (dbolya/yolact and MMDetection's YOLACT head): encode,
// decode, crop, intersect, jaccard, index2d, sanitize_coordinates, coefficient diversity.
#include "box_ops.hpp"
#include "registry.hpp"
#include "yolact_ops.hpp"

namespace opbench::samples {

namespace {
constexpr double k_center_variance = 0.1, k_size_variance = 0.2;
} // namespace

at::Tensor yolact_encode(const at::Tensor& matched, const at::Tensor& priors) {
  const auto prior_xy = priors.narrow(1, 0, 2), prior_wh = priors.narrow(1, 2, 2);
  auto g_cxcy = (matched.narrow(1, 0, 2) + matched.narrow(1, 2, 2)) / 2 - prior_xy;
  g_cxcy = g_cxcy / (k_center_variance * prior_wh);
  auto g_wh = (matched.narrow(1, 2, 2) - matched.narrow(1, 0, 2)) / prior_wh;
  g_wh = at::log(g_wh) / k_size_variance;
  return at::cat({g_cxcy, g_wh}, 1);
}

at::Tensor yolact_decode(const at::Tensor& loc, const at::Tensor& priors) {
  const auto prior_xy = priors.narrow(1, 0, 2), prior_wh = priors.narrow(1, 2, 2);
  auto boxes = at::cat({prior_xy + loc.narrow(1, 0, 2) * k_center_variance * prior_wh,
                        prior_wh * at::exp(loc.narrow(1, 2, 2) * k_size_variance)},
                       1);
  // As the original: in place on column views, centre-size to corners.
  boxes.narrow(1, 0, 2).sub_(boxes.narrow(1, 2, 2) / 2);
  boxes.narrow(1, 2, 2).add_(boxes.narrow(1, 0, 2));
  return boxes;
}

at::Tensor yolact_crop(const at::Tensor& masks, const at::Tensor& boxes, std::int64_t padding) {
  const auto h = masks.size(0), w = masks.size(1), n = masks.size(2);
  const auto x = sanitize_coordinates(boxes.select(1, 0), boxes.select(1, 2),
                                      static_cast<double>(w), static_cast<double>(padding));
  const auto y = sanitize_coordinates(boxes.select(1, 1), boxes.select(1, 3),
                                      static_cast<double>(h), static_cast<double>(padding));
  const auto options = x[0].options();
  const auto rows = at::arange(w, options).view({1, -1, 1}).expand({h, w, n});
  const auto cols = at::arange(h, options).view({-1, 1, 1}).expand({h, w, n});
  const auto left = rows >= x[0].view({1, 1, -1}), right = rows < x[1].view({1, 1, -1});
  const auto up = cols >= y[0].view({1, 1, -1}), down = cols < y[1].view({1, 1, -1});
  const auto crop_mask = left * right * up * down;
  return masks * crop_mask.to(masks.scalar_type());
}

at::Tensor coeff_diversity_loss(const at::Tensor& coeffs, const at::Tensor& instance_t) {
  const auto num_pos = coeffs.size(0);
  const auto ids = instance_t.view(-1);
  const auto coeffs_norm =
      coeffs / coeffs.norm(2, {1}, /*keepdim=*/true).clamp_min(1e-12); // F.normalize
  auto cos_sim = at::matmul(coeffs_norm, coeffs_norm.t());
  const auto inst_eq = (ids.unsqueeze(1).expand_as(cos_sim) == ids.unsqueeze(0).expand_as(cos_sim))
                           .to(coeffs.scalar_type());
  cos_sim = (cos_sim + 1) / 2;
  const auto loss = (1 - cos_sim) * inst_eq + cos_sim * (1 - inst_eq);
  return loss.sum() / static_cast<double>(num_pos);
}

namespace {

const std::string k_yolact =
    "https://github.com/dbolya/yolact/blob/57b8f2d95e62e2e649b382f516ab41f949b57239/layers/";

// n priors (cx, cy, w, h) inside the unit square, as YOLACT's prior boxes are.
at::Tensor priors(std::int64_t n, at::Generator& g) {
  return at::cat({at::rand({n, 2}, g), at::rand({n, 2}, g) * 0.3 + 0.02}, 1);
}

// n boxes (x1, y1, x2, y2) in relative coordinates with x2 > x1, y2 > y1.
at::Tensor unit_boxes(std::int64_t n, at::Generator& g) {
  const auto xy = at::rand({n, 2}, g) * 0.6;
  return at::cat({xy, xy + at::rand({n, 2}, g) * 0.35 + 0.05}, 1);
}

} // namespace

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

at::Tensor index2d(const at::Tensor& src, const at::Tensor& idx) {
  const auto offs = at::arange(idx.size(0), idx.options()).unsqueeze(1) * src.size(1);
  return src.reshape(-1).index({(idx + offs).reshape(-1)}).view(idx.sizes());
}

std::vector<at::Tensor> sanitize_coordinates(const at::Tensor& x1, const at::Tensor& x2,
                                             double img_size, double padding) {
  const auto a = x1 * img_size, b = x2 * img_size;
  return {at::min(a, b).sub(padding).clamp_min(0), at::max(a, b).add(padding).clamp_max(img_size)};
}

void register_yolact_samples(std::vector<Sample>& out) {
  Family family(out, "yolact_samples.cpp");
  family
      .add("encode", {"IfElseBranch", "ViewAttribute"}, "SINGLE_REPO",
           k_yolact + "box_utils.py#L230")
      .axes({"boxes"})
      .cases({{128}, {256}, {512}})
      .backward()
      // Encodes detached targets, which no training differentiates: backward takes both inputs.
      .grad_inputs({0, 1})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{unit_boxes(size_at(s, 0), g), priors(size_at(s, 0), g)};
      })
      .body([](const Tensors& t) { return Tensors{yolact_encode(t[0], t[1])}; });
  family
      .add("decode", {"IfElseBranch", "ViewAttribute"}, "SINGLE_REPO",
           k_yolact + "box_utils.py#L268")
      .axes({"boxes"})
      .cases({{300}, {600}, {800}})
      .backward()
      // The predicted locations, not the priors.
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({size_at(s, 0), 4}, g), priors(size_at(s, 0), g)};
      })
      .body([](const Tensors& t) { return Tensors{yolact_decode(t[0], t[1])}; });
  // YOLACT's mask prototypes are 138 x 138; one mask per detection.
  family.add("crop", {"Reduce", "IfElseBranch"}, "SINGLE_REPO", k_yolact + "box_utils.py#L350")
      .axes({"masks"})
      .cases({{4}, {2}, {8}})
      .backward()
      // YOLACT's lincomb mask loss crops the predicted masks with ground-truth boxes.
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::rand({138, 138, size_at(s, 0)}, g), unit_boxes(size_at(s, 0), g)};
      })
      .body([](const Tensors& t) { return Tensors{yolact_crop(t[0], t[1])}; });
  // 32 mask coefficients per detection (YOLACT's default), instances among 10 objects.
  family
      .add("coeff_diversity_loss", {"ViewAttribute"}, "SINGLE_REPO",
           k_yolact + "modules/multibox_loss.py#L475")
      .axes({"detections"})
      .cases({{300}, {400}, {600}})
      .backward()
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({size_at(s, 0), 32}, g),
                       at::randint(0, 10, {size_at(s, 0)}, g, k_long)};
      })
      .body([](const Tensors& t) { return Tensors{coeff_diversity_loss(t[0], t[1])}; });
  family
      .add("intersect", {"Reduce", "ViewAttribute"}, "SINGLE_REPO",
           "https://github.com/dbolya/yolact/blob/57b8f2d95e62e2e649b382f516ab41f949b57239/scripts/"
           "optimize_bboxes.py#L24")
      .axes({"boxes"})
      .cases({{128}, {256}, {512}})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{random_boxes(size_at(s, 0), g), random_boxes(size_at(s, 0), g)};
      })
      .body([](const Tensors& t) { return Tensors{intersect(t[0], t[1])}; });
  family
      .add("jaccard", {"Reduce", "ViewAttribute"}, "SINGLE_REPO",
           "https://github.com/dbolya/yolact/blob/57b8f2d95e62e2e649b382f516ab41f949b57239/scripts/"
           "optimize_bboxes.py#L45")
      .axes({"boxes"})
      .cases({{300}, {600}, {800}})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{random_boxes(size_at(s, 0), g), random_boxes(size_at(s, 0), g)};
      })
      .body([](const Tensors& t) { return Tensors{jaccard(t[0], t[1])}; });
  family
      .add("index2d", {"ViewAttribute"}, "SINGLE_REPO",
           "https://github.com/dbolya/yolact/blob/57b8f2d95e62e2e649b382f516ab41f949b57239/layers/"
           "box_utils.py#L376")
      .axes({"rows_x10"})
      .cases({{10}, {20}, {30}})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({size_at(s, 0) * 10, 100}, g),
                       random_labels(100, {size_at(s, 0) * 10, 8}, g)};
      })
      .body([](const Tensors& t) { return Tensors{index2d(t[0], t[1])}; });
  family
      .add("sanitize_coordinates", {"Reduce", "IfElseBranch"}, "MMDET",
           "https://github.com/open-mmlab/mmdetection/blob/"
           "c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/models/dense_heads/yolact_head.py#L876")
      .axes({"rows", "columns"})
      .cases({{300, 100}, {600, 100}, {800, 100}})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::rand({size_at(s, 0), size_at(s, 1)}, g),
                       at::rand({size_at(s, 0), size_at(s, 1)}, g)};
      })
      .body([](const Tensors& t) { return sanitize_coordinates(t[0], t[1], 550, 1); });
}

} // namespace opbench::samples
