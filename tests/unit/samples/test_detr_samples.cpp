// The DETR heads (detr_samples.cpp) against independent answers: hand-worked values and the
// same quantity computed another way.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <vector>

#include "detr_ops.hpp"
#include "registry.hpp"
#include "tensor_checks.hpp"

namespace opbench::samples {
namespace {

TEST(DetrHeads, CardinalityPostprocessAndPositionEmbeddings) {
  // Queries predict classes 0, no-object (2), 1: cardinality 2.
  auto logits = at::full({1, 3, 3}, -5.0);
  logits[0][0][0] = 5.0;
  logits[0][1][2] = 5.0;
  logits[0][2][1] = 5.0;
  EXPECT_NEAR(detr_loss_cardinality(logits, testing::longs({2})).item<float>(), 0.0, 1e-6);
  EXPECT_NEAR(detr_loss_cardinality(logits, testing::longs({0})).item<float>(), 2.0, 1e-6);
  const auto out = detr_postprocess(
      logits, testing::floats({0.5f, 0.5f, 0.2f, 0.4f}).view({1, 1, 4}).expand({1, 3, 4}),
      testing::floats({100, 200}).view({1, 2}));
  testing::expect_float_close(out[2][0][0], testing::floats({80, 30, 120, 70}));
  testing::expect_float_close(out[0], std::get<0>(logits.softmax(-1).narrow(-1, 0, 2).max(-1)));
  auto g = testing::seeded(11);
  const auto x = at::randn({2, 8, 3, 4}, g), row = at::rand({50, 5}, g), col = at::rand({50, 5}, g);
  const auto pos = position_embedding_learned(x, row, col);
  EXPECT_EQ(pos.sizes(), (std::vector<int64_t>{2, 10, 3, 4}));
  testing::expect_float_close(pos[1].narrow(0, 0, 5).select(1, 2).select(1, 3),
                              col[3]); // x part at column 3
  testing::expect_float_close(pos[0].narrow(0, 5, 5).select(1, 2).select(1, 0),
                              row[2]); // y part at row 2
  const auto sine = position_embedding_sine(at::zeros({1, 1, 1}, at::kBool), 4);
  EXPECT_NEAR(sine[0][0][0][0].item<float>(), 0.0, 1e-4); // sin(2 pi)
  EXPECT_NEAR(sine[0][1][0][0].item<float>(), 1.0, 1e-4); // cos(2 pi / 1)
}

} // namespace
} // namespace opbench::samples
