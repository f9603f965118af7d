// Network layers: MMEditing's partial convolution and the fused conv / linear patterns.
#include <ATen/core/grad_mode.h>

#include <array>

#include "layer_ops.hpp"
#include "registry.hpp"

namespace opbench::samples {

// 2-d convolutions spell out both dimensions of stride, padding and dilation, as PyTorch's
// Python does (its argument parser widens `1` to [1, 1]). C++'s `1` is the list [1]: ATen
// widens it, but a graph traced from it carries [1], and oneDNN Graph's fuser refuses such a
// convolution ("dimensions are invalid"), which Python code never shows it.
constexpr std::array<std::int64_t, 2> k_stride{1, 1}, k_dilation{1, 1}, k_no_padding{0, 0},
    k_same_padding{1, 1};

at::Tensor partialconv2d(const at::Tensor& input, const at::Tensor& mask, const at::Tensor& weight,
                         const at::Tensor& bias) {
  const int64_t k = weight.size(2) * weight.size(3);
  at::Tensor updated, ratio;
  {
    at::NoGradGuard no_grad;
    updated = at::conv2d(mask, at::ones({1, 1, weight.size(2), weight.size(3)}, mask.options()), {},
                         k_stride, k_no_padding, k_dilation);
    ratio = static_cast<double>(k) / (updated + 1e-8);
    updated = updated.clamp(0, 1);
    ratio = ratio * updated;
  }
  const auto raw = at::conv2d(input * mask, weight, bias, k_stride, k_no_padding, k_dilation);
  const auto b = bias.view({1, -1, 1, 1});
  return ((raw - b) * ratio + b) * updated;
}

at::Tensor conv_relu(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  return at::relu(at::conv2d(x, w, b, k_stride, k_same_padding, k_dilation));
}

at::Tensor conv_bn(const at::Tensor& x, const at::Tensor& w, const at::Tensor& gamma,
                   const at::Tensor& beta, const at::Tensor& mean, const at::Tensor& var) {
  return at::batch_norm(at::conv2d(x, w, {}, k_stride, k_same_padding, k_dilation), gamma, beta,
                        mean, var, false, 0.1, 1e-5, true);
}

at::Tensor linear_gelu(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  return at::gelu(at::linear(x, w, b));
}

void register_layer_samples(std::vector<Sample>& out) {
  Family family(out, "layer_samples.cpp");
  family
      .add("partialconv2d", {"ThirdPartyCodes", "IfElseBranch"}, "MMEDIT",
           "https://github.com/open-mmlab/mmediting/blob/ce2a70f1321907d1451a376637cf56be76168a67/"
           "mmedit/models/common/partial_conv.py#L10")
      .axes({"side", "channels"})
      .cases({{100, 3}, {200, 3}})
      .backward()
      // Input, weight and bias; not the hole mask (data).
      .grad_inputs({0, 2, 3})
      .inputs([](const Json& s, at::Generator& g) {
        const auto hw = size_at(s, 0), c = size_at(s, 1);
        return Tensors{at::randn({1, c, hw, hw}, g),
                       at::randint(0, 2, {1, 1, hw, hw}, g, k_long).to(at::kFloat),
                       at::randn({16, c, 3, 3}, g), at::randn({16}, g)};
      })
      .body([](const Tensors& t) { return Tensors{partialconv2d(t[0], t[1], t[2], t[3])}; });
  // Fused patterns (MXNet operator-benchmark design): ResNet-50 layer1 3x3 conv, BERT FFN.
  auto conv_inputs = [](const Json& s, at::Generator& g) {
    return Tensors{at::randn({size_at(s, 0), 64, 56, 56}, g),
                   at::randn({64, 64, 3, 3}, g) * 0.05,
                   at::randn({64}, g),
                   at::rand({64}, g) + 0.5,
                   at::randn({64}, g),
                   at::randn({64}, g),
                   at::rand({64}, g) + 0.5};
  };
  const std::vector<std::vector<std::int64_t>> conv_cases{{1}, {8}};
  family.add("conv_relu", {"Fused"}, "MXNET_DESIGN", "")
      .axes({"batch"})
      .cases(conv_cases)
      .backward()
      .grad_inputs({0, 1, 2})
      .written_from("the fused-operator patterns of MXNet's operator-benchmark design (convolution "
                    "then ReLU)")
      .inputs(conv_inputs)
      .body([](const Tensors& t) { return Tensors{conv_relu(t[0], t[1], t[2])}; });
  family.add("conv_bn", {"Fused"}, "MXNET_DESIGN", "")
      .axes({"batch"})
      .cases(conv_cases)
      .backward()
      // Input, conv weight, BN weight and bias; not the running statistics (buffers).
      .grad_inputs({0, 1, 3, 4})
      .written_from("the fused-operator patterns of MXNet's operator-benchmark design (convolution "
                    "then batch norm)")
      .inputs(conv_inputs)
      .body([](const Tensors& t) { return Tensors{conv_bn(t[0], t[1], t[3], t[4], t[5], t[6])}; });
  family.add("conv_bn_relu", {"Fused"}, "MXNET_DESIGN", "")
      .axes({"batch"})
      .cases(conv_cases)
      .backward()
      // Input, conv weight, BN weight and bias; not the running statistics (buffers).
      .grad_inputs({0, 1, 3, 4})
      .written_from("the fused-operator patterns of MXNet's operator-benchmark design "
                    "(convolution, batch norm, ReLU)")
      .inputs(conv_inputs)
      .body([](const Tensors& t) {
        return Tensors{at::relu(conv_bn(t[0], t[1], t[3], t[4], t[5], t[6]))};
      });
  family.add("linear_gelu", {"Fused"}, "MXNET_DESIGN", "")
      .axes({"tokens", "in_features", "out_features"})
      .cases({{1024, 768, 3072}})
      .backward()
      .grad_inputs({0, 1, 2})
      .written_from(
          "the fused-operator patterns of MXNet's operator-benchmark design (linear then GELU)")
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({size_at(s, 0), size_at(s, 1)}, g),
                       at::randn({size_at(s, 2), size_at(s, 1)}, g) * 0.02,
                       at::randn({size_at(s, 2)}, g)};
      })
      .body([](const Tensors& t) { return Tensors{linear_gelu(t[0], t[1], t[2])}; });
}

} // namespace opbench::samples
