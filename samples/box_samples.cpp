// Box coders and box geometry: MMDetection's delta, legacy-delta, TBLR and YOLO coders, Detectron's
// legacy box regression, bbox2roi, DETR's box_ops, torchvision's masks_to_boxes.
#include <array>
#include <cmath>

#include "box_ops.hpp"
#include "registry.hpp"

namespace opbench::samples {
namespace {

at::Tensor col(const at::Tensor& t, int64_t i) {
  return t.select(-1, i);
}

} // namespace

at::Tensor bbox2delta(const at::Tensor& proposals, const at::Tensor& gt) {
  const auto px = (col(proposals, 0) + col(proposals, 2)) * 0.5,
             py = (col(proposals, 1) + col(proposals, 3)) * 0.5;
  const auto pw = col(proposals, 2) - col(proposals, 0), ph = col(proposals, 3) - col(proposals, 1);
  const auto gx = (col(gt, 0) + col(gt, 2)) * 0.5, gy = (col(gt, 1) + col(gt, 3)) * 0.5;
  const auto gw = col(gt, 2) - col(gt, 0), gh = col(gt, 3) - col(gt, 1);
  return at::stack({(gx - px) / pw, (gy - py) / ph, at::log(gw / pw), at::log(gh / ph)}, -1);
}

at::Tensor delta2bbox(const at::Tensor& rois, const at::Tensor& deltas, double max_ratio) {
  const auto dx = col(deltas, 0), dy = col(deltas, 1);
  const auto dw = col(deltas, 2).clamp(-max_ratio, max_ratio),
             dh = col(deltas, 3).clamp(-max_ratio, max_ratio);
  const auto px = (col(rois, 0) + col(rois, 2)) * 0.5, py = (col(rois, 1) + col(rois, 3)) * 0.5;
  const auto pw = col(rois, 2) - col(rois, 0), ph = col(rois, 3) - col(rois, 1);
  const auto gw = pw * dw.exp(), gh = ph * dh.exp();
  const auto gx = px + pw * dx, gy = py + ph * dy;
  return at::stack({gx - gw * 0.5, gy - gh * 0.5, gx + gw * 0.5, gy + gh * 0.5}, -1);
}

at::Tensor bbox2tblr(const at::Tensor& priors, const at::Tensor& gts, double normalizer) {
  const auto cx = (col(priors, 0) + col(priors, 2)) * 0.5,
             cy = (col(priors, 1) + col(priors, 3)) * 0.5;
  const auto w = col(priors, 2) - col(priors, 0), h = col(priors, 3) - col(priors, 1);
  const auto top = cy - col(gts, 1), bottom = col(gts, 3) - cy, left = cx - col(gts, 0),
             right = col(gts, 2) - cx;
  return at::stack({top / h, bottom / h, left / w, right / w}, -1) / normalizer;
}

at::Tensor tblr2bbox(const at::Tensor& priors, const at::Tensor& tblr, double normalizer) {
  const auto cx = (col(priors, 0) + col(priors, 2)) * 0.5,
             cy = (col(priors, 1) + col(priors, 3)) * 0.5;
  const auto w = col(priors, 2) - col(priors, 0), h = col(priors, 3) - col(priors, 1);
  const auto d = tblr * normalizer;
  return at::stack({cx - col(d, 2) * w, cy - col(d, 0) * h, cx + col(d, 3) * w, cy + col(d, 1) * h},
                   -1);
}

at::Tensor yolo_encode(const at::Tensor& bboxes, const at::Tensor& gt, const at::Tensor& stride,
                       double eps) {
  const auto xy = (gt.narrow(-1, 0, 2) + gt.narrow(-1, 2, 2)) * 0.5;
  const auto wh = gt.narrow(-1, 2, 2) - gt.narrow(-1, 0, 2);
  const auto pxy = (bboxes.narrow(-1, 0, 2) + bboxes.narrow(-1, 2, 2)) * 0.5;
  const auto pwh = bboxes.narrow(-1, 2, 2) - bboxes.narrow(-1, 0, 2);
  const auto s = stride.unsqueeze(-1);
  const auto txy = ((xy - pxy) / s + 0.5).clamp(eps, 1 - eps);
  const auto twh = (wh / pwh).clamp_min(eps).log();
  return at::cat({txy, twh}, -1);
}

at::Tensor yolo_decode(const at::Tensor& bboxes, const at::Tensor& pred, const at::Tensor& stride) {
  const auto pxy = (bboxes.narrow(-1, 0, 2) + bboxes.narrow(-1, 2, 2)) * 0.5;
  const auto pwh = bboxes.narrow(-1, 2, 2) - bboxes.narrow(-1, 0, 2);
  const auto xy = pxy + (pred.narrow(-1, 0, 2) - 0.5) * stride.unsqueeze(-1);
  const auto half = pwh * pred.narrow(-1, 2, 2).exp() * 0.5;
  return at::cat({xy - half, xy + half}, -1);
}

namespace {

// Detectron's xyxy2xywh, with the legacy + 1: width x2 - x1 + 1, centre x1 + width / 2.
std::array<at::Tensor, 4> detectron_xywh(const at::Tensor& b) {
  const auto w = col(b, 2) - col(b, 0) + 1, h = col(b, 3) - col(b, 1) + 1;
  return {col(b, 0) + 0.5 * w, col(b, 1) + 0.5 * h, w, h};
}

} // namespace

at::Tensor bbox2offset(const at::Tensor& boxes, const at::Tensor& gt_boxes,
                       const std::array<double, 4>& weights) {
  const auto [ex, ey, ew, eh] = detectron_xywh(boxes);
  const auto [gx, gy, gw, gh] = detectron_xywh(gt_boxes);
  return at::stack({weights[0] * (gx - ex) / ew, weights[1] * (gy - ey) / eh,
                    weights[2] * at::log(gw / ew), weights[3] * at::log(gh / eh)},
                   1);
}

at::Tensor offset2bbox(const at::Tensor& boxes, const at::Tensor& offsets,
                       const std::array<double, 4>& weights) {
  using at::indexing::None;
  using at::indexing::Slice;
  const auto [cx, cy, w, h] = detectron_xywh(boxes);
  const auto every4 = [&](std::int64_t k) { return offsets.index({Slice(), Slice(k, None, 4)}); };
  const double clip = std::log(1000.0 / 16.0); // keeps exp() from overflowing
  const auto dx = every4(0) / weights[0], dy = every4(1) / weights[1];
  const auto dw = (every4(2) / weights[2]).clamp_max(clip),
             dh = (every4(3) / weights[3]).clamp_max(clip);
  const auto centre_x = dx * w.unsqueeze(1) + cx.unsqueeze(1),
             centre_y = dy * h.unsqueeze(1) + cy.unsqueeze(1);
  const auto width = at::exp(dw) * w.unsqueeze(1), height = at::exp(dh) * h.unsqueeze(1);
  auto pred = at::zeros(offsets.sizes(), offsets.options());
  pred.index_put_({Slice(), Slice(0, None, 4)}, centre_x - 0.5 * width);
  pred.index_put_({Slice(), Slice(1, None, 4)}, centre_y - 0.5 * height);
  pred.index_put_({Slice(), Slice(2, None, 4)}, centre_x + 0.5 * width - 1);
  pred.index_put_({Slice(), Slice(3, None, 4)}, centre_y + 0.5 * height - 1);
  return pred;
}

at::Tensor box_area(const at::Tensor& boxes) {
  return (col(boxes, 2) - col(boxes, 0)) * (col(boxes, 3) - col(boxes, 1));
}

at::Tensor box_cxcywh_to_xyxy(const at::Tensor& b) {
  const auto cx = col(b, 0), cy = col(b, 1), w = col(b, 2), h = col(b, 3);
  return at::stack({cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h}, -1);
}

at::Tensor box_xyxy_to_cxcywh(const at::Tensor& b) {
  const auto x0 = col(b, 0), y0 = col(b, 1), x1 = col(b, 2), y1 = col(b, 3);
  return at::stack({(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0}, -1);
}

namespace {
// Pairwise intersection and union of a (N, 4) and b (M, 4).
std::pair<at::Tensor, at::Tensor> inter_union(const at::Tensor& a, const at::Tensor& b) {
  const auto lt = at::max(a.unsqueeze(1).narrow(-1, 0, 2), b.unsqueeze(0).narrow(-1, 0, 2));
  const auto rb = at::min(a.unsqueeze(1).narrow(-1, 2, 2), b.unsqueeze(0).narrow(-1, 2, 2));
  const auto wh = (rb - lt).clamp_min(0);
  const auto inter = wh.select(-1, 0) * wh.select(-1, 1);
  const auto uni = box_area(a).unsqueeze(1) + box_area(b).unsqueeze(0) - inter;
  return {inter, uni};
}
} // namespace

at::Tensor box_iou(const at::Tensor& a, const at::Tensor& b) {
  const auto [inter, uni] = inter_union(a, b);
  return inter / uni;
}

at::Tensor generalized_box_iou(const at::Tensor& a, const at::Tensor& b) {
  const auto [inter, uni] = inter_union(a, b);
  const auto iou = inter / uni;
  const auto lt = at::min(a.unsqueeze(1).narrow(-1, 0, 2), b.unsqueeze(0).narrow(-1, 0, 2));
  const auto rb = at::max(a.unsqueeze(1).narrow(-1, 2, 2), b.unsqueeze(0).narrow(-1, 2, 2));
  const auto wh = (rb - lt).clamp_min(0);
  const auto area = wh.select(-1, 0) * wh.select(-1, 1);
  return iou - (area - uni) / area;
}

at::Tensor masks_to_boxes(const at::Tensor& masks) {
  const int64_t h = masks.size(-2), w = masks.size(-1);
  const auto ys = at::arange(h, masks.options().dtype(at::kFloat)).view({1, h, 1});
  const auto xs = at::arange(w, masks.options().dtype(at::kFloat)).view({1, 1, w});
  const auto m = masks.to(at::kBool);
  const auto big = static_cast<double>(std::max(h, w));
  const auto x_masked = at::where(m, xs, big), y_masked = at::where(m, ys, big);
  const auto x_max = at::where(m, xs, -1.0).flatten(1).amax(1),
             y_max = at::where(m, ys, -1.0).flatten(1).amax(1);
  return at::stack({x_masked.flatten(1).amin(1), y_masked.flatten(1).amin(1), x_max, y_max}, 1);
}

namespace {

const char* k_mmdet = "https://github.com/open-mmlab/mmdetection/blob/"
                      "c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/core/bbox/coder/";
const char* k_detr = "https://github.com/facebookresearch/detr/blob/"
                     "eb9f7e03ed8e2ed2cd55528989fe7df890bc3fc0/util/box_ops.py";

} // namespace

at::Tensor bbox2roi(const std::vector<at::Tensor>& boxes) {
  std::vector<at::Tensor> rois;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (boxes[i].size(0) > 0) {
      rois.push_back(at::cat(
          {at::full({boxes[i].size(0), 1}, static_cast<double>(i), boxes[i].options()), boxes[i]},
          1));
    } else {
      rois.push_back(at::zeros({0, 5}, boxes[i].options()));
    }
  }
  return at::cat(rois, 0);
}

at::Tensor legacy_bbox2delta(const at::Tensor& p, const at::Tensor& g) {
  const auto pw = col(p, 2) - col(p, 0) + 1, ph = col(p, 3) - col(p, 1) + 1;
  const auto px = col(p, 0) + 0.5 * (pw - 1), py = col(p, 1) + 0.5 * (ph - 1);
  const auto gw = col(g, 2) - col(g, 0) + 1, gh = col(g, 3) - col(g, 1) + 1;
  const auto gx = col(g, 0) + 0.5 * (gw - 1), gy = col(g, 1) + 0.5 * (gh - 1);
  return at::stack({(gx - px) / pw, (gy - py) / ph, at::log(gw / pw), at::log(gh / ph)}, -1);
}

at::Tensor legacy_delta2bbox(const at::Tensor& r, const at::Tensor& d) {
  const auto pw = col(r, 2) - col(r, 0) + 1, ph = col(r, 3) - col(r, 1) + 1;
  const auto px = col(r, 0) + 0.5 * (pw - 1), py = col(r, 1) + 0.5 * (ph - 1);
  const auto gw = pw * col(d, 2).exp(), gh = ph * col(d, 3).exp();
  const auto gx = px + pw * col(d, 0), gy = py + ph * col(d, 1);
  return at::stack(
      {gx - 0.5 * (gw - 1), gy - 0.5 * (gh - 1), gx + 0.5 * (gw - 1), gy + 0.5 * (gh - 1)}, -1);
}

void register_box_samples(std::vector<Sample>& out) {
  Family family(out, "box_samples.cpp");
  auto pair_of_boxes = [](const Json& s, at::Generator& g) {
    return Tensors{random_boxes(size_at(s, 0), g), random_boxes(size_at(s, 0), g)};
  };
  family
      .add("bbox2delta", {"ViewAttribute"}, "MMDET",
           std::string(k_mmdet) + "delta_xywh_bbox_coder.py#L117")
      .axes({"boxes"})
      .cases({{128}, {64}, {8}})
      .backward()
      // Encodes detached targets, which no training differentiates: backward takes both inputs.
      .grad_inputs({0, 1})
      .inputs(pair_of_boxes)
      .body([](const Tensors& t) { return Tensors{bbox2delta(t[0], t[1])}; });
  family
      .add(
          "delta2bbox", {"ThirdPartyCodes", "IfElseBranch", "ViewAttribute"}, "MMDET",
          "https://github.com/open-mmlab/mmdetection/blob/c76ab0eb3c637b86c343d8454e07e00cfecc1b78/"
          "mmdet/core/bbox/coder/delta_xywh_bbox_coder.py#L164")
      .axes({"boxes", "coordinates"})
      .cases({{3000, 4}, {2000, 4}, {1000, 4}})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{random_boxes(size_at(s, 0), g), at::randn({size_at(s, 0), 4}, g) * 0.2};
      })
      .body([](const Tensors& t) { return Tensors{delta2bbox(t[0], t[1])}; });
  family.add("bbox2tblr", {"IfElseBranch", "ViewAttribute"}, "UNKNOWN", "")
      .axes({"boxes", "coordinates"})
      .cases({{3000, 4}, {4000, 4}, {5000, 4}})
      .backward()
      // Encodes detached targets, which no training differentiates: backward takes both inputs.
      .grad_inputs({0, 1})
      .written_from("MMDetection's TBLRBBoxCoder.encode (bboxes2tblr): distances to the four sides "
                    "over the prior's size, normalised")
      .inputs(pair_of_boxes)
      .body([](const Tensors& t) { return Tensors{bbox2tblr(t[0], t[1])}; });
  family.add("tblr2bbox", {"IfElseBranch", "ViewAttribute", "Broadcast"}, "UNKNOWN", "")
      .axes({"boxes"})
      .cases({{3000}, {4000}, {5000}})
      .backward()
      // Decoded predictions, as FSAF's IoU loss on decoded boxes: the distances, not the priors.
      .grad_inputs({1})
      .written_from("MMDetection's TBLRBBoxCoder.decode (tblr2bboxes): the inverse of bbox2tblr")
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{random_boxes(size_at(s, 0), g), at::rand({size_at(s, 0), 4}, g) * 0.25};
      })
      .body([](const Tensors& t) { return Tensors{tblr2bbox(t[0], t[1])}; });
  auto yolo_inputs = [](const Json& s, at::Generator& g) {
    const auto n = size_at(s, 0);
    return Tensors{random_boxes(n, g), random_boxes(n, g), at::full({n}, 32.0)};
  };
  family.add("yolo_encode", {"ViewAttribute"}, "UNKNOWN", "")
      .axes({"boxes", "coordinates"})
      .cases({{3000, 4}, {2000, 4}, {1000, 4}})
      .written_from("MMDetection's YOLOBBoxCoder.encode")
      .inputs(yolo_inputs)
      .body([](const Tensors& t) { return Tensors{yolo_encode(t[0], t[1], t[2])}; });
  family.add("yolo_decode", {"ViewAttribute"}, "UNKNOWN", "")
      .axes({"boxes", "coordinates"})
      .cases({{3000, 4}, {2000, 4}, {1000, 4}})
      .written_from("MMDetection's YOLOBBoxCoder.decode")
      .inputs([](const Json& s, at::Generator& g) {
        const auto n = size_at(s, 0);
        return Tensors{random_boxes(n, g), at::rand({n, 4}, g), at::full({n}, 32.0)};
      })
      .body([](const Tensors& t) { return Tensors{yolo_decode(t[0], t[1], t[2])}; });
  // (boxes, 4): proposals and their ground truths nearby, Detectron's unit weights.
  constexpr const char* k_detectron_from =
      "Detectron's bbox_transform and bbox_transform_inv (widths x2 - x1 + 1, log sizes clamped at "
      "log(1000 / 16)), "
      "as LongTail-Bench's own copies (DeepLink-org/DLOP-Bench, "
      "bench/samples/long_tail/bbox2offset and offset2bbox)";
  family.add("bbox2offset", {"IfElseBranch"}, "UNKNOWN", "")
      .axes({"boxes", "coordinates"})
      .cases({{3000, 4}, {2000, 4}, {1000, 4}})
      .written_from(k_detectron_from)
      .inputs([](const Json& s, at::Generator& g) {
        const auto boxes = random_boxes(size_at(s, 0), g);
        return Tensors{boxes, nearby_boxes(boxes, g)};
      })
      .body([](const Tensors& t) { return Tensors{bbox2offset(t[0], t[1])}; });
  // (boxes, offsets a box): 4 offsets, one class.
  family.add("offset2bbox", {"ViewAttribute", "IfElseBranch", "ThirdPartyCodes"}, "UNKNOWN", "")
      .axes({"boxes", "offsets"})
      .cases({{4000, 4}, {5000, 4}, {6000, 4}})
      .backward()
      // The predicted offsets, not the proposals.
      .grad_inputs({1})
      .written_from(k_detectron_from)
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{random_boxes(size_at(s, 0), g),
                       at::randn({size_at(s, 0), s.at(1).get<std::int64_t>()}, g) * 0.2};
      })
      .body([](const Tensors& t) { return Tensors{offset2bbox(t[0], t[1])}; });
  family.add("box_area", {}, "UNKNOWN", "")
      .axes({"images", "boxes_per_image"})
      .cases({{20, 5}, {40, 8}, {60, 12}})
      .written_from("torchvision.ops.box_area: (x2 - x1) * (y2 - y1) of each box")
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{random_boxes(size_at(s, 0) * s.at(1).get<std::int64_t>(), g)};
      })
      .body([](const Tensors& t) { return Tensors{box_area(t[0])}; });
  family.add("box_cxcywh_to_xyxy", {}, "SINGLE_REPO", std::string(k_detr) + "#L9")
      .axes({"boxes", "coordinates"})
      .cases({{50, 4}, {100, 4}, {200, 4}})
      .backward()
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{box_xyxy_to_cxcywh(random_boxes(size_at(s, 0), g))};
      })
      .body([](const Tensors& t) { return Tensors{box_cxcywh_to_xyxy(t[0])}; });
  family.add("box_xyxy_to_cxcywh", {}, "SINGLE_REPO", std::string(k_detr) + "#L16")
      .axes({"boxes", "coordinates"})
      .cases({{50, 4}, {100, 4}, {200, 4}})
      .backward()
      .grad_inputs({0})
      .inputs(
          [](const Json& s, at::Generator& g) { return Tensors{random_boxes(size_at(s, 0), g)}; })
      .body([](const Tensors& t) { return Tensors{box_xyxy_to_cxcywh(t[0])}; });
  family.add("box_iou", {"Reduce"}, "SINGLE_REPO", std::string(k_detr) + "#L24")
      .axes({"boxes1", "coordinates1", "boxes2", "coordinates2"})
      .cases({{400, 4, 72, 4}, {800, 4, 144, 4}, {1600, 4, 288, 4}})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{random_boxes(size_at(s, 0), g),
                       random_boxes(s.at(2).get<std::int64_t>(), g)};
      })
      .body([](const Tensors& t) { return Tensors{box_iou(t[0], t[1])}; });
  family
      .add("generalized_box_iou", {"ViewAttribute", "Reduce"}, "SINGLE_REPO",
           std::string(k_detr) + "#L40")
      .axes({"boxes1", "boxes2"})
      .cases({{400, 72}, {800, 144}, {1600, 288}})
      .backward()
      // DETR's loss_boxes: the predicted boxes, not the targets.
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{random_boxes(size_at(s, 0), g),
                       random_boxes(s.at(1).get<std::int64_t>(), g)};
      })
      .body([](const Tensors& t) { return Tensors{generalized_box_iou(t[0], t[1])}; });
  family
      .add("masks_to_boxes", {"ViewAttribute", "IfElseBranch", "Reduce"}, "SINGLE_REPO",
           std::string(k_detr) + "#L64")
      // Boolean masks alone: a case's dtype would reach no computation (boxes come out float32).
      .dtypes({"float32"})
      .axes({"masks", "height", "width"})
      .cases({{400, 128, 6}, {300, 128, 6}})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randint(
            0, 2, {size_at(s, 0), s.at(1).get<std::int64_t>(), s.at(2).get<std::int64_t>()}, g,
            at::TensorOptions().dtype(at::kBool))};
      })
      .body([](const Tensors& t) { return Tensors{masks_to_boxes(t[0])}; });
  family.add("bbox2roi", {"ForLoop", "IfElseBranch"}, "UNKNOWN", "")
      .axes({"boxes_per_image"})
      .cases({{32}, {64}, {128}})
      .written_from("MMDetection's bbox2roi (mmdet/core/bbox/transforms.py): each image's boxes "
                    "prefixed with its index, concatenated")
      .inputs([](const Json& s, at::Generator& g) {
        Tensors boxes;
        for (int i = 0; i < 4; ++i)
          boxes.push_back(random_boxes(size_at(s, 0), g));
        return boxes;
      })
      .body([](const Tensors& t) { return Tensors{bbox2roi(t)}; });
  family
      .add(
          "legacy_bbox2delta", {"ViewAttribute"}, "MMDET",
          "https://github.com/open-mmlab/mmdetection/blob/bde7b4b7eea9dd6ee91a486c6996b2d68662366d/"
          "mmdet/core/bbox/coder/legacy_delta_xywh_bbox_coder.py#L85")
      .axes({"boxes"})
      .cases({{3000}, {2000}, {1000}})
      .backward()
      // Encodes detached targets, which no training differentiates: backward takes both inputs.
      .grad_inputs({0, 1})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{random_boxes(size_at(s, 0), g), random_boxes(size_at(s, 0), g)};
      })
      .body([](const Tensors& t) { return Tensors{legacy_bbox2delta(t[0], t[1])}; });
  family
      .add(
          "legacy_delta2bbox", {"ViewAttribute", "IfElseBranch"}, "MMDET",
          "https://github.com/open-mmlab/mmdetection/blob/bde7b4b7eea9dd6ee91a486c6996b2d68662366d/"
          "mmdet/core/bbox/coder/legacy_delta_xywh_bbox_coder.py#L134")
      .axes({"boxes", "coordinates"})
      .cases({{3000, 4}, {2000, 4}, {1000, 4}})
      .backward()
      // The predicted deltas, not the RoIs (a decoded-box loss).
      .grad_inputs({1})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{random_boxes(size_at(s, 0), g), at::randn({size_at(s, 0), 4}, g) * 0.2};
      })
      .body([](const Tensors& t) { return Tensors{legacy_delta2bbox(t[0], t[1])}; });
}

} // namespace opbench::samples
