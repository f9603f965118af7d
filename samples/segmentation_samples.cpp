// Losses of segmentation and dense prediction (SEGMENTBASE2 in the catalogue): edge maps,
// image gradients.
#include "registry.hpp"
#include "segmentation_ops.hpp"

namespace opbench::samples {
namespace {

// The forward difference of `t` along `dim`: t[i + 1] - t[i], one shorter there.
at::Tensor difference(const at::Tensor& t, std::int64_t dim) {
  return t.narrow(dim, 1, t.size(dim) - 1) - t.narrow(dim, 0, t.size(dim) - 1);
}

}  // namespace

at::Tensor edge_wbce_loss(const at::Tensor& logits, const at::Tensor& edges) {
  const auto per_image = edges.flatten(1);
  const auto positives = per_image.sum(1, /*keepdim=*/true);
  const auto total = static_cast<double>(per_image.size(1));
  const auto beta = (total - positives) / total;  // the share of non-edge pixels
  const auto weight = at::where(per_image > 0.5, beta.expand_as(per_image), (1 - beta).expand_as(per_image));
  const auto loss = at::binary_cross_entropy_with_logits(logits.flatten(1), per_image, weight, {}, at::Reduction::Sum);
  return loss / static_cast<double>(logits.size(0));
}

at::Tensor gradient_loss(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& mask) {
  const auto gx = (difference(pred, 3) - difference(target, 3)).abs();
  const auto gy = (difference(pred, 2) - difference(target, 2)).abs();
  if (!mask.defined()) return gx.mean() + gy.mean();
  // A difference counts where both of its pixels are valid.
  const auto mx = mask.narrow(3, 1, mask.size(3) - 1) * mask.narrow(3, 0, mask.size(3) - 1);
  const auto my = mask.narrow(2, 1, mask.size(2) - 1) * mask.narrow(2, 0, mask.size(2) - 1);
  const auto channels = static_cast<double>(pred.size(1));
  return (gx * mx).sum() / (mx.sum() * channels).clamp_min(1) + (gy * my).sum() / (my.sum() * channels).clamp_min(1);
}

at::Tensor edge_smooth_loss(const at::Tensor& disparity, const at::Tensor& image, std::int64_t scales, bool normalise) {
  at::Tensor total = disparity.sum() * 0.0;
  at::Tensor disp = disparity, img = image;
  for (std::int64_t scale = 0; scale < scales; ++scale) {
    if (scale > 0) {
      disp = at::avg_pool2d(disp, 2);
      img = at::avg_pool2d(img, 2);
    }
    const auto d = normalise ? disp / (disp.mean({2, 3}, /*keepdim=*/true) + 1e-7) : disp;
    const auto smooth_x = difference(d, 3).abs() * at::exp(-difference(img, 3).abs().mean(1, /*keepdim=*/true));
    const auto smooth_y = difference(d, 2).abs() * at::exp(-difference(img, 2).abs().mean(1, /*keepdim=*/true));
    total = total + (smooth_x.mean() + smooth_y.mean()) / static_cast<double>(1LL << scale);
  }
  return total;
}

at::Tensor ifv_loss(const at::Tensor& student, const at::Tensor& teacher, const at::Tensor& labels, std::int64_t classes) {
  const auto t = teacher.detach();
  const auto resized = at::upsample_nearest2d(labels.unsqueeze(1).to(student.scalar_type()),
                                              {student.size(2), student.size(3)})
                           .expand(student.sizes());
  auto centre_s = student.clone(), centre_t = t.clone();
  for (std::int64_t c = 0; c < classes; ++c) {
    const auto mask = (resized == static_cast<double>(c)).to(student.scalar_type());
    const auto pixels = mask.sum({2, 3}) + 1e-6;
    const auto mean_s = ((mask * student).sum({2, 3}) / pixels).unsqueeze(-1).unsqueeze(-1);
    const auto mean_t = ((mask * t).sum({2, 3}) / pixels).unsqueeze(-1).unsqueeze(-1);
    centre_s = (1 - mask) * centre_s + mask * mean_s;
    centre_t = (1 - mask) * centre_t + mask * mean_t;
  }
  const auto similarity_s = at::cosine_similarity(student, centre_s, 1);
  const auto similarity_t = at::cosine_similarity(t, centre_t, 1);
  return at::mse_loss(similarity_s, similarity_t);
}

namespace {

void reg(std::vector<Sample>& out, const char* name, std::vector<std::string> tags, std::vector<Json> cases, bool backward,
         Sample::Maker make, Sample::Body body, const char* written_from) {
  out.push_back({{name, std::move(tags), "SEGMENTBASE2", "", std::move(cases), backward, "segmentation_samples.cpp"},
                 std::move(make), std::move(body)});
  out.back().info.written_from = written_from;
}

}  // namespace

void register_segmentation_samples(std::vector<Sample>& out) {
  // (batch): 128 x 128 edge maps, about a tenth of the pixels on an edge.
  reg(out, "edge_wbceloss", {"ViewAttribute", "Reduce"}, {sizes_case({2}), sizes_case({4}), sizes_case({8})}, true,
      [](const Json& s, at::Generator& g) {
        const auto b = size_at(s, 0);
        return Tensors{at::randn({b, 1, 128, 128}, g), (at::rand({b, 1, 128, 128}, g) < 0.1).to(at::kFloat)};
      },
      [](const Tensors& t) { return Tensors{edge_wbce_loss(t[0], t[1])}; },
      "the class-balanced cross entropy of HED (Xie and Tu 2015, \"Holistically-nested edge detection\"): edge pixels "
      "weighted by the share of non-edge pixels of their image, and the other way round");
  out.back().info.axes = {"batch"};
  // (side): a one-channel map of side x side with a validity mask (a quarter invalid).
  reg(out, "gradient_loss", {"ViewAttribute", "IfElseBranch", "Reduce"},
      {sizes_case({128}), sizes_case({256}), sizes_case({512})}, true,
      [](const Json& s, at::Generator& g) {
        const auto side = size_at(s, 0);
        return Tensors{at::rand({1, 1, side, side}, g), at::rand({1, 1, side, side}, g),
                       (at::rand({1, 1, side, side}, g) > 0.25).to(at::kFloat)};
      },
      [](const Tensors& t) { return Tensors{gradient_loss(t[0], t[1], t[2])}; },
      "the image-gradient matching loss of dense prediction (the L1 distance of the finite differences of prediction "
      "and target, as in MiDaS's and matting's gradient losses), masked to valid pixels");
  out.back().info.axes = {"side"};
  // (batch): disparities and images of 96 x 320 (KITTI at a quarter), four scales.
  reg(out, "edge_smoothloss", {"ViewAttribute", "IfElseBranch", "Reduce", "ForLoop"},
      {sizes_case({2}), sizes_case({4}), sizes_case({8})}, true,
      [](const Json& s, at::Generator& g) {
        const auto b = size_at(s, 0);
        return Tensors{at::rand({b, 1, 96, 320}, g) + 0.01, at::rand({b, 3, 96, 320}, g)};
      },
      [](const Tensors& t) { return Tensors{edge_smooth_loss(t[0], t[1])}; },
      "the edge-aware smoothness loss of self-supervised depth (Godard et al. 2017; Monodepth2's get_smooth_loss "
      "with mean-normalised disparity), over four scales");
  out.back().info.axes = {"batch"};
  // (feature channels): student and teacher features of 2 images at 32 x 32, 19 classes
  // (Cityscapes) labelled at 128 x 128.
  reg(out, "ifv_loss", {"ViewAttribute", "Reduce", "ForLoop", "IfElseBranch"},
      {sizes_case({128}), sizes_case({256}), sizes_case({512})}, true,
      [](const Json& s, at::Generator& g) {
        const auto c = size_at(s, 0);
        return Tensors{at::randn({2, c, 32, 32}, g), at::randn({2, c, 32, 32}, g),
                       at::randint(0, 19, {2, 128, 128}, g, at::TensorOptions().dtype(at::kLong))};
      },
      [](const Tensors& t) { return Tensors{ifv_loss(t[0], t[1], t[2], 19)}; },
      "IFVD's CriterionIFV (Wang et al. 2020, \"Intra-class feature variation distillation for semantic "
      "segmentation\"): the MSE between student's and teacher's pixel-to-class-centre cosine similarities");
  out.back().info.axes = {"channels"};
}

}  // namespace opbench::samples
