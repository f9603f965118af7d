// Attention layers of PaddleRec's recommendation models (MIND, BST, MHCN): the family of
// factorization_machine, smooth_step and split_heads_qkv (more_samples.cpp).
#include <cmath>

#include "recommendation_ops.hpp"
#include "registry.hpp"

namespace opbench::samples {

std::vector<at::Tensor> label_aware_attention(const at::Tensor& keys, const at::Tensor& query, double pow_p) {
  auto weight = at::sum(keys * query.unsqueeze(1), {-1}, /*keepdim=*/true);
  weight = at::pow(weight, pow_p);
  weight = at::softmax(weight, 1);
  return {at::sum(keys * weight, {1}), weight};
}

at::Tensor bst_scaled_dot_product_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                            const at::Tensor& attn_bias) {
  auto product = at::matmul(q, k.transpose(-1, -2)) * std::pow(static_cast<double>(q.size(-1)), -0.5);
  if (attn_bias.defined()) product = product + attn_bias;
  const auto weights = at::softmax(product, -1);
  return at::matmul(weights, v);
}

std::vector<at::Tensor> channel_attention(const std::vector<at::Tensor>& channels, const at::Tensor& att,
                                          const at::Tensor& att_mat) {
  std::vector<at::Tensor> weights;
  for (const auto& embedding : channels) weights.push_back(at::sum(att * at::matmul(embedding, att_mat), {1}));
  const auto score = at::softmax(at::stack(weights, 0).transpose(0, 1), -1);
  at::Tensor mixed;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    // As the original: transpose, scale each column by the channel's scores, transpose back.
    const auto part = (channels[i].transpose(0, 1) * score.transpose(0, 1)[static_cast<std::int64_t>(i)]).transpose(0, 1);
    mixed = mixed.defined() ? mixed + part : part;
  }
  return {mixed, score};
}

namespace {

const std::string k_paddlerec = "https://github.com/PaddlePaddle/PaddleRec/blob/";


void reg(std::vector<Sample>& out, const char* name, std::vector<std::string> tags, std::string url,
         std::vector<Json> cases, bool backward, Sample::Maker make, Sample::Body body) {
  out.push_back({{name, std::move(tags), "PADDLEREC", std::move(url), std::move(cases), backward, "recommendation_samples.cpp"},
                 std::move(make), std::move(body)});
}

}  // namespace

void register_recommendation_samples(std::vector<Sample>& out) {
  reg(out, "label_aware_attention", {"Reduce"},
      k_paddlerec + "8ce9dbdbc5d0149bfcdb57a06a183024cff21aa3/models/recall/mind/net.py#L267",
      {sizes_case({12, 12, 12}), sizes_case({16, 16, 16}), sizes_case({32, 32, 32})}, true,
      [](const Json& s, at::Generator& g) {
        return Tensors{at::randn({size_at(s, 0), size_at(s, 1), size_at(s, 2)}, g), at::randn({size_at(s, 0), size_at(s, 2)}, g)};
      },
      [](const Tensors& t) { return label_aware_attention(t[0], t[1]); });
  out.back().info.axes = {"users", "interests", "width"};
  // (batch, sequence, model width); the bias masks the padded positions of each sequence.
  reg(out, "scaled_dot_product_attention", {"InputAware", "IfElseBranch"},
      k_paddlerec + "1f1d93eba5503bec87c11acc8203c2266c63c285/models/rank/bst/net.py#L362", {sizes_case({12, 12, 12})}, true,
      [](const Json& s, at::Generator& g) {
        const auto b = size_at(s, 0), l = size_at(s, 1), d = size_at(s, 2);
        const auto padded = at::rand({b, 1, l}, g) > 0.8;
        return Tensors{at::randn({b, l, d}, g), at::randn({b, l, d}, g), at::randn({b, l, d}, g),
                       padded.to(at::kFloat).expand({b, l, l}).contiguous() * -1e9};
      },
      [](const Tensors& t) { return Tensors{bst_scaled_dot_product_attention(t[0], t[1], t[2], t[3])}; });
  out.back().info.axes = {"batch", "sequence", "width"};
  // MHCN mixes its three channels (social, joint, purchase): (users, embedding width).
  reg(out, "channel_attention", {"InputAware", "Reduce", "ForLoop"},
      k_paddlerec + "fa3e3a8a591d55778edf8d26982467d5be0840ef/models/recall/mhcn/net.py#L224", {sizes_case({16, 16})}, true,
      [](const Json& s, at::Generator& g) {
        const auto n = size_at(s, 0), d = size_at(s, 1);
        return Tensors{at::randn({n, d}, g), at::randn({n, d}, g), at::randn({n, d}, g), at::randn({1, d}, g) * 0.1,
                       at::randn({d, d}, g) * 0.1};
      },
      [](const Tensors& t) { return channel_attention({t[0], t[1], t[2]}, t[3], t[4]); });
  out.back().info.axes = {"users", "width"};
}

}  // namespace opbench::samples
