// Sequence and recommendation helpers (OpenNMT, fairseq, PaddleRec).
#include "registry.hpp"
#include "sample_ops.hpp"

namespace opbench::samples {

at::Tensor sequence_mask(const at::Tensor& lengths, std::int64_t max_len) {
  return at::arange(max_len, lengths.options()).unsqueeze(0) < lengths.unsqueeze(1);
}

at::Tensor make_positions(const at::Tensor& tokens, std::int64_t padding_idx) {
  const auto mask = tokens.ne(padding_idx).to(at::kLong);
  return at::cumsum(mask, 1) * mask + padding_idx;
}

at::Tensor squash(const at::Tensor& v, double eps) {
  const auto sq = (v * v).sum(-1, true);
  return sq / (1 + sq) * v / at::sqrt(sq + eps);
}

at::Tensor dec2bin(const at::Tensor& x, std::int64_t bits) {
  const auto mask = at::pow(2, at::arange(bits - 1, -1, -1, x.options()));
  return x.unsqueeze(-1).bitwise_and(mask).ne(0).to(at::kFloat);
}

namespace {

Json sizes(std::initializer_list<std::int64_t> s) { return {{"sizes", std::vector<std::int64_t>(s)}}; }
std::int64_t n(const Json& j, std::size_t i) { return j.at(i).get<std::int64_t>(); }
const auto k_long = at::TensorOptions().dtype(at::kLong);

}  // namespace

void register_misc_samples(std::vector<Sample>& out) {
  out.push_back({{"sequence_mask", {"InputAware", "Broadcast", "ViewAttribute"}, "OPENNMT", "https://github.com/OpenNMT/OpenNMT-py/blob/c8081afa3fab4e169c34a84f9304cf37184f97d7/onmt/utils/misc.py#L56", {sizes({12}), sizes({16}), sizes({32})}, false, "misc_samples.cpp"},
                 [](const Json& s, at::Generator& g) { return Tensors{at::randint(1, n(s, 0) + 1, {n(s, 0)}, g, k_long)}; },
                 [](const Tensors& t) { return Tensors{sequence_mask(t[0], t[0].size(0))}; }});
  out.back().info.axes = {"sequences"};
  out.push_back({{"make_positions", {"InputAware", "Reduce"}, "FAIRSEQ", "https://github.com/facebookresearch/fairseq/blob/b5a039c292facba9c73f59ff34621ec131d82341/fairseq/utils.py#L256", {sizes({12, 12}), sizes({16, 16}), sizes({32, 32})}, false, "misc_samples.cpp"},
                 [](const Json& s, at::Generator& g) { return Tensors{at::randint(1, 100, {n(s, 0), n(s, 1)}, g, k_long)}; },
                 [](const Tensors& t) { return Tensors{make_positions(t[0], 1)}; }});
  out.back().info.axes = {"batch", "length"};
  out.push_back({{"squash", {"Reduce"}, "OPENNMT", "https://github.com/PaddlePaddle/PaddleRec/blob/8ce9dbdbc5d0149bfcdb57a06a183024cff21aa3/models/recall/mind/net.py#L152", {sizes({12}), sizes({16}), sizes({32})}, true, "misc_samples.cpp"},
                 [](const Json& s, at::Generator& g) { return Tensors{at::randn({n(s, 0), 8}, g)}; },
                 [](const Tensors& t) { return Tensors{squash(t[0])}; }});
  out.back().info.axes = {"capsules"};
  out.push_back({{"dec2bin", {"InputAware", "Broadcast"}, "PADDLEREC", "https://github.com/PaddlePaddle/PaddleRec/blob/3b416accde4366e26f55f8d27f2453704a146bad/models/multitask/dselect_k/net.py#L190", {sizes({12, 12, 12}), sizes({16, 16, 16}), sizes({32, 32, 32})}, false, "misc_samples.cpp"},
                 [](const Json& s, at::Generator& g) { return Tensors{at::randint(0, 1 << 10, {n(s, 0), n(s, 1)}, g, k_long), at::full({1}, n(s, 2), k_long)}; },
                 [](const Tensors& t) { return Tensors{dec2bin(t[0], t[1].item<std::int64_t>())}; }});
  out.back().info.host_inputs = 1;
  out.back().info.axes = {"rows", "columns", "bits"};
}

}  // namespace opbench::samples
