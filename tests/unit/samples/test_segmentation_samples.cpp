// Segmentation losses (segmentation_samples.cpp) against hand-worked values and pixel-by-pixel
// loops written from the originals' formulas, in double; their gradients against finite
// differences.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "registry.hpp"
#include "segmentation_ops.hpp"
#include "tensor_checks.hpp"

namespace opbench::samples {
namespace {

const auto k_double = at::TensorOptions().dtype(at::kDouble);
const auto k_long = at::TensorOptions().dtype(at::kLong);

at::Tensor doubles(std::vector<double> v, at::IntArrayRef shape) {
  return at::tensor(v, k_double).view(shape);
}
at::Tensor longs(std::vector<std::int64_t> v, at::IntArrayRef shape) {
  return at::tensor(v, k_long).view(shape);
}

// Labels of (B, H, W) with some pixels 255.
at::Tensor labels_with_ignored(std::int64_t b, std::int64_t classes, std::int64_t h, std::int64_t w,
                               at::Generator& g) {
  auto labels = at::randint(0, classes, {b, h, w}, g, k_long);
  return labels.masked_fill(at::rand({b, h, w}, g) < 0.2, k_ignore_label);
}

std::vector<double> softmax_at(const at::Tensor& x, std::int64_t b, std::int64_t i,
                               std::int64_t j) {
  const auto a = x.accessor<double, 4>();
  std::vector<double> p(static_cast<std::size_t>(x.size(1)));
  double top = -std::numeric_limits<double>::infinity(), sum = 0;
  for (std::int64_t c = 0; c < x.size(1); ++c)
    top = std::max(top, a[b][c][i][j]);
  for (std::int64_t c = 0; c < x.size(1); ++c)
    sum += p[c] = std::exp(a[b][c][i][j] - top);
  for (auto& v : p)
    v /= sum;
  return p;
}

// The derivative of f's scalar result with respect to x[flat], by central differences.
double numeric_derivative(const std::function<at::Tensor(const at::Tensor&)>& f,
                          const at::Tensor& x, std::int64_t flat) {
  const double h = 1e-6;
  auto plus = x.clone(), minus = x.clone();
  plus.view({-1})[flat] += h;
  minus.view({-1})[flat] -= h;
  return (f(plus).item<double>() - f(minus).item<double>()) / (2 * h);
}

// f's gradient with respect to x against finite differences at a few elements.
void expect_gradient_matches_differences(const std::function<at::Tensor(const at::Tensor&)>& f,
                                         const at::Tensor& x, double tol = 1e-5) {
  const auto input = x.clone().requires_grad_(true);
  f(input).backward();
  const auto grad = input.grad().view({-1});
  for (std::int64_t flat = 0; flat < x.numel(); flat += std::max<std::int64_t>(1, x.numel() / 7)) {
    EXPECT_NEAR(grad[flat].item<double>(), numeric_derivative(f, x, flat), tol)
        << "element " << flat;
  }
}

TEST(SegmentationSamples, EdgeLossWeighsTheRareEdgesUp) {
  // One image of 4 pixels, one edge: beta = 3/4. Logits 0: each pixel's BCE is log 2; the edge
  // weighs 3/4, the three others 1/4: the mean (3/4 + 3/4) log 2 / 4, times 10. A 255 counts as 0.
  const auto logits = at::zeros({1, 1, 2, 2}, k_double);
  EXPECT_NEAR(edge_wbce_loss(logits, longs({1, 0, 0, 0}, {1, 2, 2})).item<double>(),
              3.75 * std::log(2.0), 1e-12);
  EXPECT_NEAR(edge_wbce_loss(logits, longs({1, 255, 0, 0}, {1, 2, 2})).item<double>(),
              3.75 * std::log(2.0), 1e-12);
  // A random batch, pixel by pixel.
  auto g = testing::seeded(61);
  const auto x = at::randn({3, 1, 4, 5}, g).to(at::kDouble);
  const auto labels = labels_with_ignored(3, 2, 4, 5, g);
  const auto t = labels.masked_fill(labels == 255, 0).to(at::kDouble);
  const double beta = 1 - t.mean().item<double>();
  double sum = 0;
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    const double xi = x.view({-1})[i].item<double>(), ti = t.view({-1})[i].item<double>();
    const double bce = std::max(xi, 0.0) - xi * ti + std::log1p(std::exp(-std::abs(xi)));
    sum += (ti > 0.5 ? beta : 1 - beta) * bce;
  }
  EXPECT_NEAR(edge_wbce_loss(x, labels).item<double>(), 10 * sum / static_cast<double>(x.numel()),
              1e-10);
  expect_gradient_matches_differences(
      [&](const at::Tensor& in) { return edge_wbce_loss(in, labels); }, x);
}

// Sobel x of a map at (i, j), zero padded.
double sobel_at(const at::TensorAccessor<double, 2>& m, std::int64_t i, std::int64_t j,
                bool along_x) {
  static const double kx[3][3] = {{1, 0, -1}, {2, 0, -2}, {1, 0, -1}};
  static const double ky[3][3] = {{1, 2, 1}, {0, 0, 0}, {-1, -2, -1}};
  double v = 0;
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      const auto y = i + a - 1, x = j + b - 1;
      if (y < 0 || x < 0 || y >= m.size(0) || x >= m.size(1))
        continue;
      v += (along_x ? kx : ky)[a][b] * m[y][x];
    }
  }
  return v;
}

TEST(SegmentationSamples, GradientLossComparesNormalisedSobelGradientsOverLabelledPixels) {
  EXPECT_TRUE(at::equal(sobel_kernel_x(2, k_double)[1][0],
                        doubles({1, 0, -1, 2, 0, -2, 1, 0, -1}, {3, 3})));
  EXPECT_TRUE(at::equal(sobel_kernel_y(1, k_double)[0][0],
                        doubles({1, 2, 1, 0, 0, 0, -1, -2, -1}, {3, 3})));
  auto g = testing::seeded(62);
  const auto s = at::rand({2, 2, 4, 5}, g).to(at::kDouble) * 100,
             t = at::rand({2, 2, 4, 5}, g).to(at::kDouble) * 100;
  const auto labels = labels_with_ignored(2, 2, 4, 5, g);
  const auto kx = sobel_kernel_x(2, k_double), ky = sobel_kernel_y(2, k_double);
  EXPECT_NEAR(gradient_loss(s, s, labels, kx, ky).item<double>(), 0.0, 1e-12);
  double sum_x = 0, sum_y = 0;
  std::int64_t count = 0;
  for (std::int64_t b = 0; b < 2; ++b) {
    for (std::int64_t c = 0; c < 2; ++c) {
      const auto ms = s[b][c].contiguous(), mt = t[b][c].contiguous();
      const auto as = ms.accessor<double, 2>(), at_ = mt.accessor<double, 2>();
      for (std::int64_t i = 0; i < 4; ++i) {
        for (std::int64_t j = 0; j < 5; ++j) {
          if (labels[b][i][j].item<std::int64_t>() == 255)
            continue;
          const double sx = sobel_at(as, i, j, true), sy = sobel_at(as, i, j, false);
          const double tx = sobel_at(at_, i, j, true), ty = sobel_at(at_, i, j, false);
          const double ns = std::sqrt(sx * sx + sy * sy + 1e-5),
                       nt = std::sqrt(tx * tx + ty * ty + 1e-5);
          sum_x += std::pow(sx / ns - tx / nt, 2);
          sum_y += std::pow(sy / ns - ty / nt, 2);
          ++count;
        }
      }
    }
  }
  EXPECT_NEAR(gradient_loss(s, t, labels, kx, ky).item<double>(),
              (sum_x + sum_y) / static_cast<double>(count), 1e-10);
  // Nothing labelled: 0.
  EXPECT_EQ(gradient_loss(s, t, at::full({2, 4, 5}, 255, k_long), kx, ky).item<double>(), 0.0);
  expect_gradient_matches_differences(
      [&](const at::Tensor& in) { return gradient_loss(in, t, labels, kx, ky); }, s);
}

TEST(SegmentationSamples, EdgeSmoothnessWeighsProbabilityStepsAwayFromEdges) {
  auto g = testing::seeded(63);
  const auto logits = at::randn({2, 3, 4, 5}, g).to(at::kDouble),
             edge_logits = at::randn({2, 1, 4, 5}, g);
  const auto labels = labels_with_ignored(2, 2, 4, 5, g);
  // Constant probabilities are smooth whatever the edges.
  EXPECT_NEAR(
      edge_smooth_loss(at::zeros({2, 3, 4, 5}, k_double), edge_logits, labels).item<double>(), 0.0,
      1e-12);
  double sum = 0;
  for (std::int64_t b = 0; b < 2; ++b) {
    for (std::int64_t i = 0; i < 4; ++i) {
      for (std::int64_t j = 0; j < 5; ++j) {
        // Edge pixels (label 1) in the 3 x 3 window, at most 3; the weight exp(-10 e).
        double e = 0;
        for (std::int64_t y = std::max<std::int64_t>(i - 1, 0);
             y <= std::min<std::int64_t>(i + 1, 3); ++y) {
          for (std::int64_t x = std::max<std::int64_t>(j - 1, 0);
               x <= std::min<std::int64_t>(j + 1, 4); ++x) {
            e += labels[b][y][x].item<std::int64_t>() == 1 ? 1 : 0;
          }
        }
        const double w = std::exp(-10 * std::min(e, 3.0));
        // Differences with the right and the lower neighbour, the map's border replicated.
        const auto p = softmax_at(logits, b, i, j);
        const auto right = softmax_at(logits, b, i, std::min<std::int64_t>(j + 1, 4));
        const auto below = softmax_at(logits, b, std::min<std::int64_t>(i + 1, 3), j);
        for (std::size_t c = 0; c < 3; ++c)
          sum += w * (std::abs(right[c] - p[c]) + std::abs(below[c] - p[c]));
      }
    }
  }
  EXPECT_NEAR(edge_smooth_loss(logits, edge_logits, labels).item<double>(),
              10 * sum / (2 * 3 * 4 * 5), 1e-10);
}

TEST(SegmentationSamples, IfvLossIsZeroForATeacherTwinAndHandWorkedOtherwise) {
  auto g = testing::seeded(67);
  const auto features = at::randn({2, 4, 4, 4}, g).to(at::kDouble);
  const auto labels = at::randint(0, 3, {2, 1, 8, 8}, g, k_long);
  EXPECT_NEAR(ifv_loss(features, features, labels, 3).item<double>(), 0.0, 1e-10);
  // One image of 2 pixels, one class: the centre is their mean. Student (1, 0) and (0, 1): each is
  // at 45 degrees to (0.5, 0.5), cos = 1/sqrt(2); teacher (1, 0) twice: cos 1. MSE (1 -
  // 1/sqrt(2))^2.
  const auto student = doubles({1, 0, 0, 1}, {1, 2, 1, 2});
  const auto teacher = doubles({1, 1, 0, 0}, {1, 2, 1, 2});
  const double expected = std::pow(1 - 1 / std::sqrt(2.0), 2);
  EXPECT_NEAR(ifv_loss(student, teacher, at::zeros({1, 1, 1, 2}, k_long), 1).item<double>(),
              expected, 1e-6);
  // The second pixel ignored: the class holds the first alone, which is its own centre: 0; with
  // both ignored, 0 too.
  EXPECT_NEAR(ifv_loss(student, teacher, longs({0, 255}, {1, 1, 1, 2}), 1).item<double>(), 0.0,
              1e-6);
  EXPECT_EQ(ifv_loss(student, teacher, longs({255, 255}, {1, 1, 1, 2}), 1).item<double>(), 0.0);
  expect_gradient_matches_differences(
      [&](const at::Tensor& in) { return ifv_loss(in, features.flip(0), labels, 3); }, features,
      1e-4);
}

TEST(SegmentationSamples, InterRegionLossComparesClassCentreSimilarities) {
  auto g = testing::seeded(68);
  const auto features = at::randn({2, 3, 4, 4}, g).to(at::kDouble);
  const auto labels = at::randint(0, 2, {2, 1, 4, 4}, g, k_long);
  EXPECT_NEAR(inter_region_loss(features, features, labels, 2).item<double>(), 0.0, 1e-12);
  // Student centres (1, 0) and (0, 1): similarities [[1, 0], [0, 1]]; teacher centres (1, 0) and
  // (2, 0): all 1. MSE (0 + 1 + 1 + 0) / 4.
  const auto student = doubles({1, 0, 0, 1}, {1, 2, 1, 2});
  const auto teacher = doubles({1, 2, 0, 0}, {1, 2, 1, 2});
  EXPECT_NEAR(inter_region_loss(student, teacher, longs({0, 1}, {1, 1, 1, 2}), 2).item<double>(),
              0.5, 1e-9);
  expect_gradient_matches_differences(
      [&](const at::Tensor& in) { return inter_region_loss(in, features.flip(0), labels, 2); },
      features, 1e-4);
}

TEST(SegmentationSamples, KnowledgeGapLossPixelByPixel) {
  auto g = testing::seeded(69);
  const auto s = at::randn({3, 3, 2, 2}, g).to(at::kDouble) * 2,
             t = at::randn({3, 3, 2, 2}, g).to(at::kDouble) * 2;
  const auto labels =
      labels_with_ignored(3, 3, 2, 2, g).index_put_({0, 0, 0}, 255).index_put_({0, 0, 1}, 1);
  EXPECT_NEAR(knowledge_gap_loss(s, labels, s).item<double>(), 0.0, 1e-12); // no gap, no divergence
  double sum = 0;
  int count = 0;
  for (std::int64_t b = 0; b < 3; ++b) {
    for (std::int64_t i = 0; i < 2; ++i) {
      for (std::int64_t j = 0; j < 2; ++j) {
        const auto y = labels[b][i][j].item<std::int64_t>();
        if (y == 255)
          continue;
        const auto ps = softmax_at(s, b, i, j), pt = softmax_at(t, b, i, j);
        const double w = std::max(pt[y] - ps[y], 0.0);
        for (std::size_t c = 0; c < 3; ++c)
          sum += w * pt[c] * (std::log(pt[c]) - std::log(ps[c]));
        ++count;
      }
    }
  }
  EXPECT_NEAR(knowledge_gap_loss(s, labels, t).item<double>(), sum / count, 1e-10);
  expect_gradient_matches_differences(
      [&](const at::Tensor& in) { return knowledge_gap_loss(in, labels, t); }, s);
}

TEST(SegmentationSamples, SoftCrossEntropyBlendsTheTeacherWithTheLabelWhereTheTeacherIsWrong) {
  auto g = testing::seeded(70);
  const auto s = at::rand({2, 3, 3, 3}, g).to(at::kDouble),
             t = at::randn({2, 3, 3, 3}, g).to(at::kDouble);
  const auto labels = labels_with_ignored(2, 3, 3, 3, g);
  double sum = 0;
  int count = 0;
  for (std::int64_t b = 0; b < 2; ++b) {
    for (std::int64_t i = 0; i < 3; ++i) {
      for (std::int64_t j = 0; j < 3; ++j) {
        const auto y = labels[b][i][j].item<std::int64_t>();
        if (y == 255)
          continue;
        auto pt = softmax_at(t, b, i, j);
        const auto ps = softmax_at(s, b, i, j);
        const auto best = std::max_element(pt.begin(), pt.end()) - pt.begin();
        if (best != y) {
          auto sorted = pt;
          std::sort(sorted.rbegin(), sorted.rend());
          const double confidence = sorted[0] - sorted[1];
          for (std::int64_t c = 0; c < 3; ++c) {
            pt[c] = pt[c] * confidence + (c == y ? 0.95 : 0.05 / 3) * (1 - confidence);
          }
        }
        for (std::size_t c = 0; c < 3; ++c)
          sum += pt[c] * (std::log(pt[c]) - std::log(ps[c]));
        ++count;
      }
    }
  }
  EXPECT_NEAR(sce_loss(s, labels, t).item<double>(), sum / count,
              1e-6); // the one-hot is float32, as the original's
  expect_gradient_matches_differences([&](const at::Tensor& in) { return sce_loss(in, labels, t); },
                                      s);
}

TEST(SegmentationSamples, DistanceTransformIsExact) {
  auto g = testing::seeded(71);
  const auto sites = at::rand({17, 23}, g) < 0.05;
  const auto d = squared_distance_transform(sites);
  const auto points = at::nonzero(sites);
  ASSERT_GT(points.size(0), 0);
  for (std::int64_t y = 0; y < 17; ++y) {
    for (std::int64_t x = 0; x < 23; ++x) {
      double best = std::numeric_limits<double>::infinity();
      for (std::int64_t k = 0; k < points.size(0); ++k) {
        const double dy = static_cast<double>(points[k][0].item<std::int64_t>() - y);
        const double dx = static_cast<double>(points[k][1].item<std::int64_t>() - x);
        best = std::min(best, dy * dy + dx * dx);
      }
      ASSERT_EQ(d[y][x].item<double>(), best) << y << ", " << x;
    }
  }
  EXPECT_GE(squared_distance_transform(at::zeros({3, 4}, at::kBool)).min().item<double>(), 1e12);
}

TEST(SegmentationSamples, SoftGaussWeightsByHand) {
  const double sigma = 7;
  const auto gauss = [&](double d2) { return 1 + std::exp(-d2 / (2 * sigma * sigma)); };
  // Labels 0 1 1 in each of 3 rows, predicted right: the boundary is column 0 (its right
  // neighbour differs); distances 0, 1, 2 by column.
  const auto labels = longs({0, 1, 1, 0, 1, 1, 0, 1, 1}, {1, 3, 3});
  const auto right = at::one_hot(labels, 2).permute({0, 3, 1, 2}).to(at::kDouble);
  const auto w = softgauss_loss_weight(right, labels);
  const double total = 3 * (gauss(0) + gauss(1) + gauss(4));
  for (std::int64_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(w[0][i][0].item<double>(), gauss(0) / total, 1e-12);
    EXPECT_NEAR(w[0][i][1].item<double>(), gauss(1) / total, 1e-12);
    EXPECT_NEAR(w[0][i][2].item<double>(), gauss(4) / total, 1e-12);
  }
  // One label everywhere, the centre mispredicted: it is the only site; a 255 weighs 0 and sums
  // nothing.
  auto flat = at::zeros({1, 3, 3}, k_long);
  auto scores = at::one_hot(flat, 2).permute({0, 3, 1, 2}).to(at::kDouble).contiguous();
  scores[0][1][1][1] = 2; // class 1 wins at the centre
  flat[0][0][0] = 255;
  const auto v = softgauss_loss_weight(scores, flat);
  const double sum = gauss(0) + 4 * gauss(1) + 3 * gauss(2); // the ignored corner drops out
  EXPECT_NEAR(v[0][1][1].item<double>(), gauss(0) / sum, 1e-12);
  EXPECT_NEAR(v[0][0][1].item<double>(), gauss(1) / sum, 1e-12);
  EXPECT_NEAR(v[0][2][2].item<double>(), gauss(2) / sum, 1e-12);
  EXPECT_EQ(v[0][0][0].item<double>(), 0.0);
  EXPECT_NEAR(v.sum().item<double>(), 1.0, 1e-9); // over the sum plus 1e-10
}

TEST(SegmentationSamples, SoftGbwAndMarginLossesPixelByPixel) {
  auto g = testing::seeded(72);
  const auto s = at::randn({3, 2, 3, 3}, g).to(at::kDouble),
             labels = at::randint(0, 2, {3, 3, 3}, g, k_long);
  const auto w = softgauss_loss_weight(s, labels);
  double gbw = 0, margin = 0;
  for (std::int64_t b = 0; b < 3; ++b) {
    for (std::int64_t i = 0; i < 3; ++i) {
      for (std::int64_t j = 0; j < 3; ++j) {
        const auto y = labels[b][i][j].item<std::int64_t>();
        const auto p = softmax_at(s, b, i, j);
        gbw += -std::log(p[y]) * w[b][i][j].item<double>();
        const double s0 = s[b][0][i][j].item<double>(), s1 = s[b][1][i][j].item<double>();
        if ((s1 > s0 ? 1 : 0) == y)
          margin += std::max(0.0, 0.85 - std::abs(s1 - s0));
      }
    }
  }
  EXPECT_NEAR(softgbw_loss(s, labels).item<double>(), gbw / 3, 1e-10);
  EXPECT_NEAR(margin_loss(s, labels).item<double>(), gbw / 3 + margin / 27, 1e-10);
  expect_gradient_matches_differences(
      [&](const at::Tensor& in) { return softgbw_loss(in, labels); }, s);
  expect_gradient_matches_differences([&](const at::Tensor& in) { return margin_loss(in, labels); },
                                      s);
}

TEST(EncodingLayers, AggregateAndScaledL2AreTheirClosedForms) {
  auto g = testing::seeded(11);
  const auto a = at::rand({2, 6, 3}, g), x = at::randn({2, 6, 4}, g), c = at::randn({3, 4}, g),
             s = at::rand({3}, g);
  testing::expect_float_close(aggregate(a, x, c), at::bmm(a.transpose(1, 2), x) -
                                                      a.sum(1).unsqueeze(2) * c.unsqueeze(0));
  testing::expect_float_close(
      scaled_l2(x, c, s), at::cdist(x, c.unsqueeze(0).expand({2, 3, 4})).pow(2) * s.view({1, 1, 3}),
      1e-3);
}

} // namespace
} // namespace opbench::samples
