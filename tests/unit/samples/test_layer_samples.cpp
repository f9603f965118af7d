// The network layers (layer_samples.cpp) against independent answers: hand-worked values and the
// same quantity computed another way.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <vector>

#include "layer_ops.hpp"
#include "registry.hpp"
#include "tensor_checks.hpp"

namespace opbench::samples {
namespace {

TEST(Layers, PartialConvAndFusedBlocksMatchIm2colAndFolding) {
  auto g = testing::seeded(11);
  const auto x = at::randn({1, 3, 8, 8}, g), w = at::randn({4, 3, 3, 3}, g), b = at::randn({4}, g);
  // A full mask: every window is complete, the ratio is 1, partial conv is plain conv.
  testing::expect_float_close(partialconv2d(x, at::ones({1, 1, 8, 8}), w, b), at::conv2d(x, w, b),
                              1e-4);
  // conv via im2col + matmul: the independent answer for the fused blocks.
  const auto cols = at::im2col(x, {3, 3}, {1, 1}, {1, 1}, {1, 1}); // (1, 27, 64)
  const auto conv = (at::matmul(w.view({4, 27}), cols) + b.view({1, 4, 1})).view({1, 4, 8, 8});
  testing::expect_float_close(conv_relu(x, w, b), at::clamp_min(conv, 0), 1e-4);
  const auto gamma = at::rand({4}, g) + 0.5, beta = at::randn({4}, g), mean = at::randn({4}, g),
             var = at::rand({4}, g) + 0.5;
  const auto inv = gamma / at::sqrt(var + 1e-5);
  const auto folded = at::conv2d(x, w * inv.view({4, 1, 1, 1}), beta - mean * inv, 1, 1);
  testing::expect_float_close(conv_bn(x, w, gamma, beta, mean, var), folded, 1e-4);
  const auto xs = at::randn({5, 6}, g), lw = at::randn({7, 6}, g), lb = at::randn({7}, g);
  const auto y = at::matmul(xs, lw.t()) + lb;
  testing::expect_float_close(linear_gelu(xs, lw, lb), 0.5 * y * (1 + at::erf(y / std::sqrt(2.0))),
                              1e-5);
}

} // namespace
} // namespace opbench::samples
