// YOLACT's box utilities and mask losses (dbolya/yolact), the family of sanitize_coordinates,
// index2d, intersect and jaccard (more_samples.cpp).
#include "more_ops.hpp"
#include "registry.hpp"
#include "yolact_ops.hpp"

namespace opbench::samples {

namespace {
constexpr double k_center_variance = 0.1, k_size_variance = 0.2;
}  // namespace

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
  const auto x = sanitize_coordinates(boxes.select(1, 0), boxes.select(1, 2), static_cast<double>(w), static_cast<double>(padding));
  const auto y = sanitize_coordinates(boxes.select(1, 1), boxes.select(1, 3), static_cast<double>(h), static_cast<double>(padding));
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
  const auto coeffs_norm = coeffs / coeffs.norm(2, {1}, /*keepdim=*/true).clamp_min(1e-12);  // F.normalize
  auto cos_sim = at::matmul(coeffs_norm, coeffs_norm.t());
  const auto inst_eq = (ids.unsqueeze(1).expand_as(cos_sim) == ids.unsqueeze(0).expand_as(cos_sim)).to(coeffs.scalar_type());
  cos_sim = (cos_sim + 1) / 2;
  const auto loss = (1 - cos_sim) * inst_eq + cos_sim * (1 - inst_eq);
  return loss.sum() / static_cast<double>(num_pos);
}

namespace {

const std::string k_yolact = "https://github.com/dbolya/yolact/blob/57b8f2d95e62e2e649b382f516ab41f949b57239/layers/";

std::int64_t first(const Json& s) { return size_at(s, 0); }

// n priors (cx, cy, w, h) inside the unit square, as YOLACT's prior boxes are.
at::Tensor priors(std::int64_t n, at::Generator& g) {
  return at::cat({at::rand({n, 2}, g), at::rand({n, 2}, g) * 0.3 + 0.02}, 1);
}

// n boxes (x1, y1, x2, y2) in relative coordinates with x2 > x1, y2 > y1.
at::Tensor unit_boxes(std::int64_t n, at::Generator& g) {
  const auto xy = at::rand({n, 2}, g) * 0.6;
  return at::cat({xy, xy + at::rand({n, 2}, g) * 0.35 + 0.05}, 1);
}

void reg(std::vector<Sample>& out, const char* name, std::vector<std::string> tags, std::string url,
         std::vector<Json> cases, bool backward, Sample::Maker make, Sample::Body body) {
  out.push_back({{name, std::move(tags), "SINGLE_REPO", std::move(url), std::move(cases), backward, "yolact_samples.cpp"},
                 std::move(make), std::move(body)});
}

}  // namespace

void register_yolact_samples(std::vector<Sample>& out) {
  reg(out, "encode", {"IfElseBranch", "ViewAttribute"}, k_yolact + "box_utils.py#L230", {sizes_case({128}), sizes_case({256}), sizes_case({512})},
      true,
      [](const Json& s, at::Generator& g) { return Tensors{unit_boxes(first(s), g), priors(first(s), g)}; },
      [](const Tensors& t) { return Tensors{yolact_encode(t[0], t[1])}; });
  out.back().info.axes = {"boxes"};
  reg(out, "decode", {"IfElseBranch", "ViewAttribute"}, k_yolact + "box_utils.py#L268", {sizes_case({300}), sizes_case({600}), sizes_case({800})},
      true,
      [](const Json& s, at::Generator& g) { return Tensors{at::randn({first(s), 4}, g), priors(first(s), g)}; },
      [](const Tensors& t) { return Tensors{yolact_decode(t[0], t[1])}; });
  out.back().info.axes = {"boxes"};
  // YOLACT's mask prototypes are 138 x 138; one mask per detection.
  reg(out, "crop", {"Reduce", "IfElseBranch"}, k_yolact + "box_utils.py#L350", {sizes_case({4}), sizes_case({2}), sizes_case({8})}, true,
      [](const Json& s, at::Generator& g) { return Tensors{at::rand({138, 138, first(s)}, g), unit_boxes(first(s), g)}; },
      [](const Tensors& t) { return Tensors{yolact_crop(t[0], t[1])}; });
  out.back().info.axes = {"masks"};
  // 32 mask coefficients per detection (YOLACT's default), instances among 10 objects.
  reg(out, "coeff_diversity_loss", {"ViewAttribute"}, k_yolact + "modules/multibox_loss.py#L475",
      {sizes_case({300}), sizes_case({400}), sizes_case({600})}, true,
      [](const Json& s, at::Generator& g) {
        return Tensors{at::randn({first(s), 32}, g), at::randint(0, 10, {first(s)}, g, at::TensorOptions().dtype(at::kLong))};
      },
      [](const Tensors& t) { return Tensors{coeff_diversity_loss(t[0], t[1])}; });
  out.back().info.axes = {"detections"};
}

}  // namespace opbench::samples
