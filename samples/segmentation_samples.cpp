// Losses of segmentation and dense prediction (SEGMENTBASE2 in the catalogue): edge maps,
// image gradients.
#include "registry.hpp"
#include "segmentation_ops.hpp"

namespace opbench::samples {

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
  auto dx = [](const at::Tensor& t) { return t.narrow(3, 1, t.size(3) - 1) - t.narrow(3, 0, t.size(3) - 1); };
  auto dy = [](const at::Tensor& t) { return t.narrow(2, 1, t.size(2) - 1) - t.narrow(2, 0, t.size(2) - 1); };
  const auto gx = (dx(pred) - dx(target)).abs(), gy = (dy(pred) - dy(target)).abs();
  if (!mask.defined()) return gx.mean() + gy.mean();
  // A difference counts where both of its pixels are valid.
  const auto mx = mask.narrow(3, 1, mask.size(3) - 1) * mask.narrow(3, 0, mask.size(3) - 1);
  const auto my = mask.narrow(2, 1, mask.size(2) - 1) * mask.narrow(2, 0, mask.size(2) - 1);
  const auto channels = static_cast<double>(pred.size(1));
  return (gx * mx).sum() / (mx.sum() * channels).clamp_min(1) + (gy * my).sum() / (my.sum() * channels).clamp_min(1);
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
}

}  // namespace opbench::samples
