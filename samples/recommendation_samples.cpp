// Layers of PaddleRec's recommendation models: MIND's label-aware attention and capsule squash,
// BST's attention and head split, MHCN's channel attention, FM, DSelect-k's smooth step and
// binary codes, word2vec's negative-sampling loss.
#include <cmath>

#include "recommendation_ops.hpp"
#include "registry.hpp"

namespace opbench::samples {

std::vector<at::Tensor> label_aware_attention(const at::Tensor& keys, const at::Tensor& query,
                                              double pow_p) {
  auto weight = at::sum(keys * query.unsqueeze(1), {-1}, /*keepdim=*/true);
  weight = at::pow(weight, pow_p);
  weight = at::softmax(weight, 1);
  return {at::sum(keys * weight, {1}), weight};
}

at::Tensor bst_scaled_dot_product_attention(const at::Tensor& q, const at::Tensor& k,
                                            const at::Tensor& v, const at::Tensor& attn_bias) {
  auto product =
      at::matmul(q, k.transpose(-1, -2)) * std::pow(static_cast<double>(q.size(-1)), -0.5);
  if (attn_bias.defined())
    product = product + attn_bias;
  const auto weights = at::softmax(product, -1);
  return at::matmul(weights, v);
}

std::vector<at::Tensor> channel_attention(const std::vector<at::Tensor>& channels,
                                          const at::Tensor& att, const at::Tensor& att_mat) {
  std::vector<at::Tensor> weights;
  for (const auto& embedding : channels)
    weights.push_back(at::sum(att * at::matmul(embedding, att_mat), {1}));
  const auto score = at::softmax(at::stack(weights, 0).transpose(0, 1), -1);
  at::Tensor mixed;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    // As the original: transpose, scale each column by the channel's scores, transpose back.
    const auto part =
        (channels[i].transpose(0, 1) * score.transpose(0, 1)[static_cast<std::int64_t>(i)])
            .transpose(0, 1);
    mixed = mixed.defined() ? mixed + part : part;
  }
  return {mixed, score};
}

namespace {

const std::string k_paddlerec = "https://github.com/PaddlePaddle/PaddleRec/blob/";

} // namespace

at::Tensor factorization_machine(const at::Tensor& v) {
  const auto sum = v.sum(1);
  return 0.5 * (sum * sum - (v * v).sum(1)).sum(1, true);
}

at::Tensor smooth_step(const at::Tensor& x, double gamma) {
  const auto cubic = -2.0 / std::pow(gamma, 3) * x.pow(3) + 3.0 / (2 * gamma) * x + 0.5;
  return at::where(x <= -gamma / 2, at::zeros_like(x),
                   at::where(x >= gamma / 2, at::ones_like(x), cubic));
}

at::Tensor split_heads_qkv(const at::Tensor& x, std::int64_t heads) {
  return x.reshape({x.size(0), x.size(1), heads, x.size(2) / heads}).permute({0, 2, 1, 3});
}

at::Tensor word2vec_loss(const at::Tensor& input, const at::Tensor& true_word,
                         const at::Tensor& negatives) {
  const auto pos = (input * true_word).sum(1);
  const auto neg = at::bmm(negatives, input.unsqueeze(2)).squeeze(2);
  return (-at::log_sigmoid(pos) - at::log_sigmoid(-neg).sum(1)).mean();
}

at::Tensor squash(const at::Tensor& v, double eps) {
  const auto sq = (v * v).sum(-1, true);
  return sq / (1 + sq) * v / at::sqrt(sq + eps);
}

at::Tensor dec2bin(const at::Tensor& x, std::int64_t bits) {
  const auto mask = at::pow(2, at::arange(bits - 1, -1, -1, x.options()));
  return x.unsqueeze(-1).bitwise_and(mask).ne(0).to(at::kFloat);
}

void register_recommendation_samples(std::vector<Sample>& out) {
  Family family(out, "recommendation_samples.cpp");
  family
      .add("label_aware_attention", {"Reduce"}, "PADDLEREC",
           k_paddlerec + "8ce9dbdbc5d0149bfcdb57a06a183024cff21aa3/models/recall/mind/net.py#L267")
      .axes({"users", "interests", "width"})
      .cases({{12, 12, 12}, {16, 16, 16}, {32, 32, 32}})
      .backward()
      .grad_inputs({0, 1})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({size_at(s, 0), size_at(s, 1), size_at(s, 2)}, g),
                       at::randn({size_at(s, 0), size_at(s, 2)}, g)};
      })
      .body([](const Tensors& t) { return label_aware_attention(t[0], t[1]); });
  // (batch, sequence, model width); the bias masks the padded positions of each sequence.
  family
      .add("scaled_dot_product_attention", {"InputAware", "IfElseBranch"}, "PADDLEREC",
           k_paddlerec + "1f1d93eba5503bec87c11acc8203c2266c63c285/models/rank/bst/net.py#L362")
      .axes({"batch", "sequence", "width"})
      .cases({{12, 12, 12}})
      .backward()
      // Queries, keys and values; not the additive padding mask.
      .grad_inputs({0, 1, 2})
      .inputs([](const Json& s, at::Generator& g) {
        const auto b = size_at(s, 0), l = size_at(s, 1), d = size_at(s, 2);
        const auto padded = at::rand({b, 1, l}, g) > 0.8;
        return Tensors{at::randn({b, l, d}, g), at::randn({b, l, d}, g), at::randn({b, l, d}, g),
                       padded.to(at::kFloat).expand({b, l, l}).contiguous() * -1e9};
      })
      .body([](const Tensors& t) {
        return Tensors{bst_scaled_dot_product_attention(t[0], t[1], t[2], t[3])};
      });
  // MHCN mixes its three channels (social, joint, purchase): (users, embedding width).
  family
      .add("channel_attention", {"InputAware", "Reduce", "ForLoop"}, "PADDLEREC",
           k_paddlerec + "fa3e3a8a591d55778edf8d26982467d5be0840ef/models/recall/mhcn/net.py#L224")
      .axes({"users", "width"})
      .cases({{16, 16}})
      .backward()
      .grad_inputs({0, 1, 2, 3, 4})
      .inputs([](const Json& s, at::Generator& g) {
        const auto n = size_at(s, 0), d = size_at(s, 1);
        return Tensors{at::randn({n, d}, g), at::randn({n, d}, g), at::randn({n, d}, g),
                       at::randn({1, d}, g) * 0.1, at::randn({d, d}, g) * 0.1};
      })
      .body([](const Tensors& t) {
        return channel_attention({t[0], t[1], t[2]}, t[3], t[4]);
      });
  family
      .add("factorization_machine", {"InputAware", "Reduce", "Broadcast"}, "PADDLEREC",
           k_paddlerec + "0aabcd30d5678d05181e6edea47c7948ef7baf12/models/rank/fm/net.py#L21")
      .axes({"embedding_dim", "unused"})
      .cases({{12, 1}})
      .backward()
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({512, 26, size_at(s, 0)}, g)};
      })
      .body([](const Tensors& t) { return Tensors{factorization_machine(t[0])}; });
  family
      .add("smooth_step", {"Broadcast"}, "PADDLEREC",
           k_paddlerec +
               "3b416accde4366e26f55f8d27f2453704a146bad/models/multitask/dselect_k/net.py#L121")
      .axes({"batch", "rows", "columns"})
      .cases({{12, 12, 12}, {16, 16, 16}, {32, 32, 32}})
      .backward()
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({size_at(s, 0), size_at(s, 1), size_at(s, 2)}, g)};
      })
      .body([](const Tensors& t) { return Tensors{smooth_step(t[0])}; });
  family
      .add("split_heads_qkv", {"InputAware", "ViewAttribute"}, "PADDLEREC",
           k_paddlerec + "1f1d93eba5503bec87c11acc8203c2266c63c285/models/rank/bst/net.py#L339")
      .axes({"sequence", "head_width"})
      .cases({{12, 12}})
      .backward()
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({128, size_at(s, 0), size_at(s, 1) * 8}, g)};
      })
      .body([](const Tensors& t) { return Tensors{split_heads_qkv(t[0], 8)}; });
  family
      .add("word2vec", {"InputAware", "Broadcast"}, "PADDLEREC",
           "https://github.com/facebookresearch/fairseq/blob/"
           "b5a039c292facba9c73f59ff34621ec131d82341/fairseq/utils.py#L256")
      .axes({"negatives", "unused"})
      .cases({{24, 1}})
      .backward()
      .grad_inputs({0, 1, 2})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({512, 64}, g) * 0.1, at::randn({512, 64}, g) * 0.1,
                       at::randn({512, size_at(s, 0), 64}, g) * 0.1};
      })
      .body([](const Tensors& t) { return Tensors{word2vec_loss(t[0], t[1], t[2])}; });
  family
      .add("squash", {"Reduce"}, "OPENNMT",
           k_paddlerec + "8ce9dbdbc5d0149bfcdb57a06a183024cff21aa3/models/recall/mind/net.py#L152")
      .axes({"capsules"})
      .cases({{12}, {16}, {32}})
      .backward()
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({size_at(s, 0), 8}, g)};
      })
      .body([](const Tensors& t) { return Tensors{squash(t[0])}; });
  family
      .add("dec2bin", {"InputAware", "Broadcast"}, "PADDLEREC",
           k_paddlerec +
               "3b416accde4366e26f55f8d27f2453704a146bad/models/multitask/dselect_k/net.py#L190")
      // Integer inputs alone: a case's dtype would reach no computation.
      .dtypes({"float32"})
      .axes({"rows", "columns", "bits"})
      .cases({{12, 12, 12}, {16, 16, 16}, {32, 32, 32}})
      .host_inputs(1)
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randint(0, 1 << 10, {size_at(s, 0), size_at(s, 1)}, g, k_long),
                       at::full({1}, size_at(s, 2), k_long)};
      })
      .body([](const Tensors& t) { return Tensors{dec2bin(t[0], t[1].item<std::int64_t>())}; });
}

} // namespace opbench::samples
