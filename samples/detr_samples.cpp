// DETR's heads: the cardinality error, the post-processor and the position embeddings.
#include "box_ops.hpp"
#include "detr_ops.hpp"
#include "registry.hpp"

namespace opbench::samples {

at::Tensor detr_loss_cardinality(const at::Tensor& logits, const at::Tensor& lengths) {
  const auto no_object = logits.size(-1) - 1;
  const auto card = (logits.argmax(-1) != no_object).sum(1);
  return at::l1_loss(card.to(at::kFloat), lengths.to(at::kFloat));
}

std::vector<at::Tensor> detr_postprocess(const at::Tensor& logits, const at::Tensor& boxes,
                                         const at::Tensor& sizes) {
  const auto prob = logits.softmax(-1);
  const auto [scores, labels] = prob.narrow(-1, 0, prob.size(-1) - 1).max(-1);
  const auto xyxy = box_cxcywh_to_xyxy(boxes);
  const auto h = sizes.select(1, 0), w = sizes.select(1, 1);
  const auto scale = at::stack({w, h, w, h}, 1).unsqueeze(1);
  return {scores, labels, xyxy * scale};
}

at::Tensor position_embedding_learned(const at::Tensor& x, const at::Tensor& row,
                                      const at::Tensor& col_embed) {
  const int64_t h = x.size(-2), w = x.size(-1);
  const auto x_emb = col_embed.narrow(0, 0, w), y_emb = row.narrow(0, 0, h);
  const auto pos = at::cat({x_emb.unsqueeze(0).expand({h, w, x_emb.size(1)}),
                            y_emb.unsqueeze(1).expand({h, w, y_emb.size(1)})},
                           -1);
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
  const auto pos_x = interleave(x.unsqueeze(-1) / dim_t),
             pos_y = interleave(y.unsqueeze(-1) / dim_t);
  return at::cat({pos_y, pos_x}, 3).permute({0, 3, 1, 2});
}

void register_detr_samples(std::vector<Sample>& out) {
  Family family(out, "detr_samples.cpp");
  family
      .add("detr_loss_cardinality", {"BuiltInDataStructure", "ForLoop", "Reduce", "ViewAttribute"},
           "SINGLE_REPO",
           "https://github.com/facebookresearch/detr/blob/14602a71482082746399dd6bc5712a9aa8f804d2/"
           "models/detr.py#L130")
      .axes({"queries"})
      .cases({{100}})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({8, size_at(s, 0), 92}, g), random_labels(20, {8}, g)};
      })
      .body([](const Tensors& t) { return Tensors{detr_loss_cardinality(t[0], t[1])}; });
  family
      .add("detr_postprocess", {"BuiltInDataStructure", "ViewAttribute"}, "SINGLE_REPO",
           "https://github.com/facebookresearch/detr/blob/14602a71482082746399dd6bc5712a9aa8f804d2/"
           "models/detr.py#L258")
      .axes({"batch", "classes"})
      .cases({{8, 10}})
      .inputs([](const Json& s, at::Generator& g) {
        const auto b = size_at(s, 0);
        return Tensors{at::randn({b, 100, size_at(s, 1) + 1}, g),
                       at::rand({b, 100, 4}, g) * 0.5 + 0.25, at::full({b, 2}, 800.0)};
      })
      .body([](const Tensors& t) { return detr_postprocess(t[0], t[1], t[2]); });
  family
      .add("position_embedding_learned", {"Customized", "ViewAttribute"}, "SINGLE_REPO",
           "https://github.com/facebookresearch/detr/blob/14602a71482082746399dd6bc5712a9aa8f804d2/"
           "models/position_encoding.py#L51")
      .axes({"batch", "channels_unused", "height", "width"})
      .cases({{4, 2048, 24, 37}})
      .backward()
      // The row and column embeddings; the features give only their shape.
      .grad_inputs({1, 2})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({size_at(s, 0), 8, size_at(s, 2), size_at(s, 3)}, g),
                       at::rand({50, 128}, g), at::rand({50, 128}, g)};
      })
      .body([](const Tensors& t) { return Tensors{position_embedding_learned(t[0], t[1], t[2])}; });
  family
      .add("position_embedding_sine", {"Customized", "Reduce", "ViewAttribute", "IfElseBranch"},
           "SINGLE_REPO",
           "https://github.com/facebookresearch/detr/blob/14602a71482082746399dd6bc5712a9aa8f804d2/"
           "models/position_encoding.py#L12")
      // A boolean mask alone: a case's dtype would reach no computation (float32, as DETR).
      .dtypes({"float32"})
      .axes({"batch"})
      .cases({{4}, {6}, {8}})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randint(0, 2, {size_at(s, 0), 25, 34}, g, k_long).lt(1)};
      })
      .body([](const Tensors& t) { return Tensors{position_embedding_sine(t[0])}; });
}

} // namespace opbench::samples
