#pragma once
// Network layers as LongTail-Bench and MXNet's operator-benchmark design time them: MMEditing's
// partial convolution, and the fused patterns conv + ReLU, conv + batch norm (+ ReLU), linear +
// GELU (ResNet-50's layer1 3x3 convolution, BERT's feed-forward).

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

namespace opbench::samples {

at::Tensor partialconv2d(const at::Tensor& input, const at::Tensor& mask, const at::Tensor& weight,
                         const at::Tensor& bias);
at::Tensor conv_relu(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b);
at::Tensor conv_bn(const at::Tensor& x, const at::Tensor& w, const at::Tensor& gamma,
                   const at::Tensor& beta, const at::Tensor& mean, const at::Tensor& var);
at::Tensor linear_gelu(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b);

} // namespace opbench::samples
