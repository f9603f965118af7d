// MMDetection's bucketing box coder (SABL): generate_buckets, bbox2bucket, bucket2bbox.
#include <cmath>

#include "bucketing_coder_ops.hpp"
#include "registry.hpp"

namespace opbench::samples {
namespace {

at::Tensor side(const at::Tensor& boxes, std::int64_t i) {
  return boxes.select(-1, i);
}

// MMDetection's bbox_rescale for (N, 4) boxes: width and height times `scale`, centres kept.
at::Tensor bbox_rescale(const at::Tensor& boxes, double scale) {
  const auto cx = (side(boxes, 0) + side(boxes, 2)) * 0.5,
             cy = (side(boxes, 1) + side(boxes, 3)) * 0.5;
  const auto w = (side(boxes, 2) - side(boxes, 0)) * scale,
             h = (side(boxes, 3) - side(boxes, 1)) * scale;
  return at::stack({cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h}, -1);
}

std::int64_t side_count(std::int64_t num_buckets) {
  return (num_buckets + 1) / 2;
}

} // namespace

Buckets generate_buckets(const at::Tensor& proposals, std::int64_t num_buckets,
                         double scale_factor) {
  const auto p = bbox_rescale(proposals, scale_factor);
  const auto centres = (at::arange(0, side_count(num_buckets), p.options()) + 0.5).unsqueeze(0);
  Buckets b;
  b.width = (side(p, 2) - side(p, 0)) / static_cast<double>(num_buckets);
  b.height = (side(p, 3) - side(p, 1)) / static_cast<double>(num_buckets);
  b.left = side(p, 0).unsqueeze(1) + centres * b.width.unsqueeze(1);
  b.right = side(p, 2).unsqueeze(1) - centres * b.width.unsqueeze(1);
  b.top = side(p, 1).unsqueeze(1) + centres * b.height.unsqueeze(1);
  b.bottom = side(p, 3).unsqueeze(1) - centres * b.height.unsqueeze(1);
  return b;
}

BucketTargets bbox2bucket(const at::Tensor& proposals, const at::Tensor& gt,
                          std::int64_t num_buckets, double scale_factor, std::int64_t offset_topk,
                          double offset_upperbound, bool cls_ignore_neighbor) {
  const Buckets b = generate_buckets(proposals.to(at::kFloat), num_buckets, scale_factor);
  const auto g = gt.to(at::kFloat);
  const auto w = b.width.unsqueeze(1), h = b.height.unsqueeze(1);
  const at::Tensor offsets[4] = {
      (b.left - side(g, 0).unsqueeze(1)) / w, (b.right - side(g, 2).unsqueeze(1)) / w,
      (b.top - side(g, 1).unsqueeze(1)) / h, (b.bottom - side(g, 3).unsqueeze(1)) / h};
  const auto rows = at::arange(proposals.size(0), proposals.options().dtype(at::kLong));
  at::Tensor weights[4], nearest[4];
  for (int s = 0; s < 4; ++s) {
    const auto [distance, label] =
        offsets[s].abs().topk(offset_topk, 1, /*largest=*/false, /*sorted=*/true);
    weights[s] = at::zeros_like(offsets[s]);
    // As the original: one indexed write per k, the nearest bucket always counted.
    for (std::int64_t k = 0; k < offset_topk; ++k) {
      const auto value = k == 0 ? at::ones_like(distance.select(1, 0))
                                : (distance.select(1, k) < offset_upperbound).to(at::kFloat);
      weights[s].index_put_({rows, label.select(1, k)}, value);
    }
    nearest[s] = label.select(1, 0);
  }
  BucketTargets t;
  t.offsets = at::cat({offsets[0], offsets[1], offsets[2], offsets[3]}, -1);
  t.offset_weights = at::cat({weights[0], weights[1], weights[2], weights[3]}, -1);
  const auto labels = at::stack({nearest[0], nearest[1], nearest[2], nearest[3]}, -1);
  t.labels = at::one_hot(labels.view(-1), side_count(num_buckets))
                 .view({labels.size(0), -1})
                 .to(at::kFloat);
  auto cls_weights =
      at::cat({(offsets[0].abs() < 1).to(at::kFloat), (offsets[1].abs() < 1).to(at::kFloat),
               (offsets[2].abs() < 1).to(at::kFloat), (offsets[3].abs() < 1).to(at::kFloat)},
              -1);
  if (cls_ignore_neighbor) {
    cls_weights = at::logical_not((cls_weights == 1).logical_and(t.labels == 0)).to(at::kFloat);
  } else {
    cls_weights.fill_(1.0);
  }
  t.label_weights = cls_weights;
  return t;
}

DecodedBuckets bucket2bbox(const at::Tensor& proposals, const at::Tensor& cls_preds,
                           const at::Tensor& offset_preds, std::int64_t num_buckets,
                           double scale_factor, double max_h, double max_w) {
  const auto per_side = side_count(num_buckets);
  const auto scores = cls_preds.reshape({-1, per_side}).softmax(1);
  const auto [score_topk, score_label] = scores.topk(2, 1, /*largest=*/true, /*sorted=*/true);
  const auto p = bbox_rescale(proposals, scale_factor);
  const auto bucket_w = (side(p, 2) - side(p, 0)) / static_cast<double>(num_buckets);
  const auto bucket_h = (side(p, 3) - side(p, 1)) / static_cast<double>(num_buckets);
  // Rows of `scores` go left, right, top, bottom for each proposal.
  const auto best = score_label.select(1, 0);
  const at::Tensor inds[4] = {best.slice(0, 0, c10::nullopt, 4), best.slice(0, 1, c10::nullopt, 4),
                              best.slice(0, 2, c10::nullopt, 4), best.slice(0, 3, c10::nullopt, 4)};
  const auto left = side(p, 0) + (0.5 + inds[0].to(p.scalar_type())) * bucket_w;
  const auto right = side(p, 2) - (0.5 + inds[1].to(p.scalar_type())) * bucket_w;
  const auto top = side(p, 1) + (0.5 + inds[2].to(p.scalar_type())) * bucket_h;
  const auto bottom = side(p, 3) - (0.5 + inds[3].to(p.scalar_type())) * bucket_h;
  const auto offsets = offset_preds.reshape({-1, 4, per_side});
  const auto rows = at::arange(proposals.size(0), proposals.options().dtype(at::kLong));
  auto pick = [&](int s) { return offsets.select(1, s).index({rows, inds[s]}); };
  auto x1 = left - pick(0) * bucket_w, x2 = right - pick(1) * bucket_w;
  auto y1 = top - pick(2) * bucket_h, y2 = bottom - pick(3) * bucket_h;
  if (max_h > 0 && max_w > 0) {
    x1 = x1.clamp(0, max_w - 1), x2 = x2.clamp(0, max_w - 1);
    y1 = y1.clamp(0, max_h - 1), y2 = y2.clamp(0, max_h - 1);
  }
  DecodedBuckets d;
  d.boxes = at::stack({x1, y1, x2, y2}, -1);
  // Bucketing-guided rescoring.
  const auto neighbours = (score_label.select(1, 0) - score_label.select(1, 1)).abs() == 1;
  const auto confidence =
      score_topk.select(1, 0) + score_topk.select(1, 1) * neighbours.to(score_topk.scalar_type());
  d.confidence = confidence.view({-1, 4}).mean(1);
  return d;
}

namespace {

const std::string k_coder = "https://github.com/open-mmlab/mmdetection/blob/"
                            "c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/core/bbox/coder/"
                            "bucketing_bbox_coder.py";
const std::string k_coder_later = "https://github.com/open-mmlab/mmdetection/blob/"
                                  "1a90fa80a761fe15e69111a625d82874ed783f7b/mmdet/core/bbox/coder/"
                                  "bucketing_bbox_coder.py";
// SABL's configuration: 14 buckets (7 a side), proposals widened 1.7 times.
constexpr std::int64_t k_buckets = 14;
constexpr double k_scale = 1.7;

// Ground truths near the proposals, as an assigner's positives are.
at::Tensor near(const at::Tensor& boxes, at::Generator& g) {
  const auto w = (side(boxes, 2) - side(boxes, 0)).unsqueeze(1),
             h = (side(boxes, 3) - side(boxes, 1)).unsqueeze(1);
  return boxes + at::randn(boxes.sizes(), g) * 0.1 * at::cat({w, h, w, h}, 1);
}

} // namespace

void register_bucketing_coder_samples(std::vector<Sample>& out) {
  Family family(out, "bucketing_coder_samples.cpp");
  // (proposals, 4).
  family.add("generate_buckets", {"ViewAttribute", "IfElseBranch"}, "MMDET", k_coder_later + "#L96")
      .axes({"proposals", "coordinates"})
      .cases({{64, 4}, {128, 4}, {32, 4}})
      .backward()
      // Training builds buckets from detached proposals; backward takes the proposals (its only
      // input).
      .grad_inputs({0})
      .inputs(
          [](const Json& s, at::Generator& g) { return Tensors{random_boxes(size_at(s, 0), g)}; })
      .body([](const Tensors& t) {
        const Buckets b = generate_buckets(t[0], k_buckets, k_scale);
        return Tensors{b.width, b.height, b.left, b.right, b.top, b.bottom};
      });
  // (proposals).
  family
      .add("bbox2bucket", {"IfElseBranch", "ForLoop", "AdvancedIndexing", "ViewAttribute"}, "MMDET",
           k_coder + "#L145")
      .axes({"proposals"})
      .cases({{3000}, {2000}, {1000}})
      .host_sync("as the original: one_hot checks the label range with .item() (LibTorch skips it "
                 "on CUDA)")
      .inputs([](const Json& s, at::Generator& g) {
        const auto proposals = random_boxes(size_at(s, 0), g);
        return Tensors{proposals, near(proposals, g)};
      })
      .body([](const Tensors& t) {
        const BucketTargets b = bbox2bucket(t[0], t[1], k_buckets, k_scale);
        return Tensors{b.offsets, b.offset_weights, b.labels, b.label_weights};
      });
  // (proposals); scores and offsets as SABL's head gives them, 4 sides x 7 buckets a proposal.
  family
      .add("bucket2bbox",
           {"ThirdPartyCodes", "ViewAttribute", "IfElseBranch", "Reduce", "AdvancedIndexing"},
           "MMDET", k_coder_later + "#L269")
      .axes({"proposals"})
      .cases({{3000}, {2000}, {1000}})
      .backward()
      // SABL's bucket scores and offsets, not the proposals.
      .grad_inputs({1, 2})
      .inputs([](const Json& s, at::Generator& g) {
        const auto n = size_at(s, 0), per_side = side_count(k_buckets);
        return Tensors{random_boxes(n, g), at::randn({n, 4 * per_side}, g),
                       at::randn({n, 4 * per_side}, g) * 0.3};
      })
      .body([](const Tensors& t) {
        const DecodedBuckets d = bucket2bbox(t[0], t[1], t[2], k_buckets, k_scale, 800, 1333);
        return Tensors{d.boxes, d.confidence};
      });
}

} // namespace opbench::samples
