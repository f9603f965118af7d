// Detection building blocks: anchors and points (base anchors, anchor grid, valid flags, FCOS
// locations), overlaps, assigners and samplers (max-IoU, random, FCOS), targets, RoI levels,
// batched NMS's class offsets, mask pasting, DETR's frozen batch norm.
#include <cmath>
#include <limits>

#include "box_ops.hpp"
#include "detection_blocks_ops.hpp"
#include "registry.hpp"

namespace opbench::samples {

at::Tensor bbox_overlaps(const at::Tensor& boxes1, const at::Tensor& boxes2,
                         const std::string& mode, double eps) {
  const auto rows = boxes1.size(-2), cols = boxes2.size(-2);
  if (rows * cols == 0)
    return at::zeros({rows, cols}, boxes1.options());
  auto area = [](const at::Tensor& b) {
    return (b.select(-1, 2) - b.select(-1, 0)) * (b.select(-1, 3) - b.select(-1, 1));
  };
  const auto area1 = area(boxes1), area2 = area(boxes2);
  const auto a_lo = boxes1.unsqueeze(-2).narrow(-1, 0, 2),
             a_hi = boxes1.unsqueeze(-2).narrow(-1, 2, 2);
  const auto b_lo = boxes2.unsqueeze(-3).narrow(-1, 0, 2),
             b_hi = boxes2.unsqueeze(-3).narrow(-1, 2, 2);
  const auto wh = (at::min(a_hi, b_hi) - at::max(a_lo, b_lo)).clamp_min(0);
  const auto overlap = wh.select(-1, 0) * wh.select(-1, 1);
  auto uni = mode == "iof" ? area1.unsqueeze(-1).expand_as(overlap)
                           : area1.unsqueeze(-1) + area2.unsqueeze(-2) - overlap;
  const auto floor = at::full({1}, eps, uni.options());
  uni = at::max(uni, floor);
  const auto ious = overlap / uni;
  if (mode != "giou")
    return ious;
  const auto enclose_wh = (at::max(a_hi, b_hi) - at::min(a_lo, b_lo)).clamp_min(0);
  const auto enclose_area = at::max(enclose_wh.select(-1, 0) * enclose_wh.select(-1, 1), floor);
  return ious - (enclose_area - uni) / enclose_area;
}

at::Tensor map_roi_levels(const at::Tensor& rois, std::int64_t num_levels, double finest_scale) {
  const auto scale =
      at::sqrt((rois.select(1, 3) - rois.select(1, 1)) * (rois.select(1, 4) - rois.select(1, 2)));
  const auto levels = at::floor(at::log2(scale / finest_scale + 1e-6));
  return levels.clamp(0, static_cast<double>(num_levels - 1)).to(at::kLong);
}

at::Tensor single_level_grid_anchors(const at::Tensor& base_anchors, std::int64_t feat_h,
                                     std::int64_t feat_w, std::int64_t stride) {
  const auto options = base_anchors.options().dtype(at::kLong);
  const auto shift_x = at::arange(0, feat_w, options) * stride,
             shift_y = at::arange(0, feat_h, options) * stride;
  // MMDetection's _meshgrid, row major.
  const auto xx = shift_x.repeat({shift_y.size(0)});
  const auto yy = shift_y.view({-1, 1}).repeat({1, shift_x.size(0)}).view(-1);
  const auto shifts = at::stack({xx, yy, xx, yy}, -1).to(base_anchors.scalar_type());
  return (base_anchors.unsqueeze(0) + shifts.unsqueeze(1)).view({-1, 4});
}

at::Tensor boxes_for_nms(const at::Tensor& boxes, const at::Tensor& idxs) {
  if (boxes.numel() == 0)
    return at::empty({0, 4}, boxes.options());
  const auto max_coordinate = boxes.max();
  const auto offsets = idxs.to(boxes.scalar_type()) * (max_coordinate + 1);
  return boxes + offsets.unsqueeze(1);
}

at::Tensor frozen_batchnorm2d(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                              const at::Tensor& running_mean, const at::Tensor& running_var) {
  const auto w = weight.reshape({1, -1, 1, 1}), b = bias.reshape({1, -1, 1, 1});
  const auto rv = running_var.reshape({1, -1, 1, 1}), rm = running_mean.reshape({1, -1, 1, 1});
  const auto scale = w * (rv + 1e-5).rsqrt();
  return x * scale + (b - rm * scale);
}

std::vector<at::Tensor> mask_predictor(const at::Tensor& rois, const at::Tensor& heatmaps,
                                       const at::Tensor& image_info, double threshold) {
  const auto host_rois =
      rois.detach().to(at::kCPU, at::kDouble, /*non_blocking=*/false, /*copy=*/true);
  const auto host_maps =
      heatmaps.detach().to(at::kCPU, at::kFloat, /*non_blocking=*/false, /*copy=*/true);
  const auto info = image_info.to(at::kDouble).contiguous();
  const auto r = host_rois.accessor<double, 2>();
  const auto images = info.accessor<double, 2>();
  const auto byte_image = at::TensorOptions().dtype(at::kByte).device(at::kCPU);
  std::vector<at::Tensor> masks(static_cast<std::size_t>(host_rois.size(0)));
  for (std::int64_t b = 0; b < info.size(0); ++b) {
    const double scale = images[b][2];
    const auto height = static_cast<std::int64_t>(images[b][3]),
               width = static_cast<std::int64_t>(images[b][4]);
    for (std::int64_t k = 0; k < host_rois.size(0); ++k) {
      if (r[k][0] != static_cast<double>(b))
        continue;
      const auto x1 = static_cast<std::int64_t>(r[k][1] / scale),
                 y1 = static_cast<std::int64_t>(r[k][2] / scale);
      const auto x2 = static_cast<std::int64_t>(r[k][3] / scale),
                 y2 = static_cast<std::int64_t>(r[k][4] / scale);
      const auto cls = static_cast<std::int64_t>(r[k][6]);
      const auto roi_w = std::max<std::int64_t>(x2 - x1 + 1, 1),
                 roi_h = std::max<std::int64_t>(y2 - y1 + 1, 1);
      const auto resized =
          at::upsample_bilinear2d(host_maps[k][cls].unsqueeze(0).unsqueeze(0), {roi_h, roi_w},
                                  /*align_corners=*/false)[0][0];
      const auto mask = (resized > threshold).to(at::kByte);
      auto image = at::zeros({height, width}, byte_image);
      const auto top = std::max<std::int64_t>(y1, 0), left = std::max<std::int64_t>(x1, 0);
      const auto rows = std::min(y1 + roi_h, height) - top,
                 cols = std::min(x1 + roi_w, width) - left;
      if (rows > 0 && cols > 0) {
        image.narrow(0, top, rows)
            .narrow(1, left, cols)
            .copy_(mask.narrow(0, top - y1, rows).narrow(1, left - x1, cols));
      }
      masks[static_cast<std::size_t>(k)] = image;
    }
  }
  return masks;
}

FcosTargets fcos_matcher(const at::Tensor& locations, const at::Tensor& size_ranges,
                         const at::Tensor& boxes, const at::Tensor& labels) {
  const auto xs = locations.select(1, 0).unsqueeze(1), ys = locations.select(1, 1).unsqueeze(1);
  const auto left = xs - boxes.select(1, 0).unsqueeze(0),
             top = ys - boxes.select(1, 1).unsqueeze(0);
  const auto right = boxes.select(1, 2).unsqueeze(0) - xs,
             bottom = boxes.select(1, 3).unsqueeze(0) - ys;
  const auto distances = at::stack({left, top, right, bottom}, 2); // (L, G, 4)
  const auto inside = std::get<0>(distances.min(2)) > 0;
  const auto reach = std::get<0>(distances.max(2));
  const auto cared = (reach >= size_ranges.select(1, 0).unsqueeze(1))
                         .logical_and(reach <= size_ranges.select(1, 1).unsqueeze(1));
  // Areas with the legacy + 1; a box a location may not take weighs "infinity", 1e10.
  constexpr double k_inf = 1e10;
  const auto area = ((boxes.select(1, 2) - boxes.select(1, 0) + 1) *
                     (boxes.select(1, 3) - boxes.select(1, 1) + 1))
                        .unsqueeze(0)
                        .repeat({locations.size(0), 1})
                        .masked_fill(inside.logical_not(), k_inf)
                        .masked_fill(cared.logical_not(), k_inf);
  const auto [least, index] = area.min(1);
  FcosTargets t;
  const auto rows = at::arange(locations.size(0), index.options());
  t.distances = distances.index({rows, index});
  t.labels = labels.index({index}).masked_fill(least == k_inf, 0);
  return t;
}

BoxTargets get_target_single(const at::Tensor& pos_bboxes, const at::Tensor& neg_bboxes,
                             const at::Tensor& pos_gt_bboxes, const at::Tensor& pos_gt_labels,
                             std::int64_t num_classes, double pos_weight) {
  const auto num_pos = pos_bboxes.size(0), num_neg = neg_bboxes.size(0),
             num_samples = num_pos + num_neg;
  BoxTargets t;
  t.labels = at::full({num_samples}, num_classes, pos_bboxes.options().dtype(at::kLong));
  t.label_weights = at::zeros({num_samples}, pos_bboxes.options());
  t.bbox_targets = at::zeros({num_samples, 4}, pos_bboxes.options());
  t.bbox_weights = at::zeros({num_samples, 4}, pos_bboxes.options());
  if (num_pos > 0) {
    t.labels.narrow(0, 0, num_pos).copy_(pos_gt_labels);
    t.label_weights.narrow(0, 0, num_pos).fill_(pos_weight <= 0 ? 1.0 : pos_weight);
    const auto deltas = bbox2delta(pos_bboxes, pos_gt_bboxes);
    t.bbox_targets.narrow(0, 0, num_pos)
        .copy_(at::cat({deltas.narrow(1, 0, 2) / 0.1, deltas.narrow(1, 2, 2) / 0.2}, 1));
    t.bbox_weights.narrow(0, 0, num_pos).fill_(1);
  }
  if (num_neg > 0)
    t.label_weights.narrow(0, num_pos, num_neg).fill_(1.0);
  return t;
}

std::vector<at::Tensor> bbox_target_expand(const at::Tensor& bbox_targets,
                                           const at::Tensor& bbox_weights, const at::Tensor& labels,
                                           at::Tensor targets_expand, at::Tensor weights_expand) {
  const auto width = bbox_targets.size(1);
  const auto positives = at::nonzero(labels > 0).squeeze(-1);
  for (std::int64_t k = 0; k < positives.size(0); ++k) {
    const auto i = positives[k].item<std::int64_t>();
    const auto start = labels[i].item<std::int64_t>() * width;
    targets_expand[i].narrow(0, start, width).copy_(bbox_targets[i]);
    weights_expand[i].narrow(0, start, width).copy_(bbox_weights[i]);
  }
  return {targets_expand, weights_expand};
}

namespace {

const std::string k_mmdet = "https://github.com/open-mmlab/mmdetection/blob/";

} // namespace

at::Tensor assign_wrt_overlaps(const at::Tensor& overlaps, double pos_thr, double neg_thr,
                               double min_pos_iou) {
  const int64_t gts = overlaps.size(0), n = overlaps.size(1);
  auto assigned = at::full({n}, -1, overlaps.options().dtype(at::kLong));
  if (gts == 0 || n == 0)
    return assigned.zero_();
  const auto [max_overlaps, argmax] = overlaps.max(0);
  const auto [gt_max, gt_argmax] = overlaps.max(1);
  assigned.masked_fill_((max_overlaps >= 0) & (max_overlaps < neg_thr), 0);
  const auto pos = max_overlaps >= pos_thr;
  assigned.index_put_({pos}, argmax.index({pos}) + 1);
  // Low-quality matches: each gt keeps the box it overlaps most.
  for (int64_t i = 0; i < gts; ++i) {
    if (gt_max[i].item<double>() >= min_pos_iou) {
      const auto best = overlaps[i] == gt_max[i];
      assigned.masked_fill_(best, i + 1);
    }
  }
  return assigned;
}

std::vector<at::Tensor> random_sampler(const at::Tensor& assigned, std::int64_t num,
                                       double pos_fraction) {
  const auto pos = at::nonzero(assigned > 0).view(-1);
  const int64_t want_pos = static_cast<int64_t>(static_cast<double>(num) * pos_fraction);
  const auto pos_take = pos.index({at::randperm(pos.size(0), assigned.options().dtype(at::kLong))
                                       .narrow(0, 0, std::min(want_pos, pos.size(0)))});
  const auto neg = at::nonzero(assigned == 0).view(-1);
  const int64_t want_neg = num - pos_take.size(0);
  const auto neg_take = neg.index({at::randperm(neg.size(0), assigned.options().dtype(at::kLong))
                                       .narrow(0, 0, std::min(want_neg, neg.size(0)))});
  return {pos_take, neg_take};
}

at::Tensor compute_locations(std::int64_t h, std::int64_t w, std::int64_t stride,
                             const at::TensorOptions& options) {
  const auto xs = at::arange(0, w * stride, stride, options.dtype(at::kFloat));
  const auto ys = at::arange(0, h * stride, stride, options.dtype(at::kFloat));
  const auto grid = at::meshgrid({ys, xs}, "ij");
  return at::stack({grid[1].reshape(-1), grid[0].reshape(-1)}, 1) + static_cast<double>(stride / 2);
}

at::Tensor gen_base_anchors(double base, const at::Tensor& ratios, const at::Tensor& scales) {
  const auto h_ratios = ratios.sqrt(), w_ratios = 1 / h_ratios;
  const auto ws = (base * w_ratios.unsqueeze(1) * scales.unsqueeze(0)).reshape(-1);
  const auto hs = (base * h_ratios.unsqueeze(1) * scales.unsqueeze(0)).reshape(-1);
  return at::stack({-0.5 * ws, -0.5 * hs, 0.5 * ws, 0.5 * hs}, -1);
}

at::Tensor valid_flags(std::int64_t h, std::int64_t w, std::int64_t vh, std::int64_t vw,
                       std::int64_t num, const at::TensorOptions& options) {
  auto vx = at::zeros({w}, options.dtype(at::kBool)), vy = at::zeros({h}, options.dtype(at::kBool));
  vx.narrow(0, 0, vw).fill_(true);
  vy.narrow(0, 0, vh).fill_(true);
  const auto valid = vy.view({h, 1}).logical_and(vx.view({1, w})).reshape(-1);
  return valid.unsqueeze(1).expand({valid.size(0), num}).reshape(-1);
}

void register_detection_block_samples(std::vector<Sample>& out) {
  Family family(out, "detection_blocks_samples.cpp");
  // (M, N) boxes; mode iou (the default), iof or giou.
  family
      .add("bbox_overlaps", {"IfElseBranch"}, "MMDET",
           k_mmdet + "bde7b4b7eea9dd6ee91a486c6996b2d68662366d/mmdet/core/bbox/iou_calculators/"
                     "iou2d_calculator.py#L75")
      .axes({"boxes1", "boxes2"})
      .cases({{4, 16}, {8, 8}, {16, 4}})
      .backward()
      // The predictions' side, as GIoULoss's bbox_overlaps(pred, target).
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{random_boxes(size_at(s, 0), g), random_boxes(size_at(s, 1), g)};
      })
      .string_param("mode", {"iou", "iof", "giou"})
      .body([](const Params& p) { // the parameters read once, outside the timed calls
        const std::string mode = p.string("mode");
        return Sample::Body(
            [mode](const Tensors& t) { return Tensors{bbox_overlaps(t[0], t[1], mode)}; });
      });
  // As box_area: (images, RoIs an image); boxes up to 800 px so that every level is hit.
  family
      .add("map_roi_levels", {"ViewAttribute"}, "MMDET",
           k_mmdet + "bde7b4b7eea9dd6ee91a486c6996b2d68662366d/mmdet/models/roi_heads/"
                     "roi_extractors/single_level_roi_extractor.py#L36")
      .axes({"images", "rois_per_image"})
      .cases({{20, 5}, {40, 8}, {60, 12}})
      .inputs([](const Json& s, at::Generator& g) {
        const auto images = size_at(s, 0), per_image = size_at(s, 1);
        const auto index = at::arange(images, at::TensorOptions().dtype(at::kFloat))
                               .repeat_interleave(per_image)
                               .unsqueeze(1);
        return Tensors{at::cat({index, random_boxes(images * per_image, g, 1600.0)}, 1)};
      })
      .int64_param("num_levels", 4, 1, 16)
      .float64_param("finest_scale", 56.0, 1.0, 1e4)
      .body([](const Params& p) { // the parameters read once, outside the timed calls
        const std::int64_t num_levels = p.int64("num_levels");
        const double finest_scale = p.float64("finest_scale");
        return Sample::Body([num_levels, finest_scale](const Tensors& t) {
          return Tensors{map_roi_levels(t[0], num_levels, finest_scale)};
        });
      });
  // (feature height, width, stride); 9 base anchors of RetinaNet's (3 ratios x 3 scales).
  family
      .add(
          "grid_anchors", {"ViewAttribute"}, "MMDET",
          k_mmdet +
              "4bd4ace53a626659070204236da5b8e14ae9cd08/mmdet/core/anchor/anchor_generator.py#L318")
      .axes({"feature_height", "feature_width", "stride"})
      .cases({{16, 32, 8}, {32, 16, 8}, {16, 16, 8}})
      .host_inputs(1)
      .inputs([](const Json& s, at::Generator&) {
        const auto base =
            gen_base_anchors(static_cast<double>(size_at(s, 2)), at::tensor({0.5f, 1.0f, 2.0f}),
                             at::tensor({4.0f, 5.04f, 6.35f}));
        return Tensors{base, at::tensor({size_at(s, 0), size_at(s, 1), size_at(s, 2)})};
      })
      .body([](const Tensors& t) {
        return Tensors{single_level_grid_anchors(t[0], t[1][0].item<std::int64_t>(),
                                                 t[1][1].item<std::int64_t>(),
                                                 t[1][2].item<std::int64_t>())};
      });
  // (boxes, 4) of 80 classes.
  family.add("boxes_for_nms", {"IfElseBranch", "Reduce"}, "UNKNOWN", "")
      .axes({"boxes", "coordinates"})
      .cases({{3000, 4}, {4800, 4}, {5000, 4}})
      .written_from("torchvision's and mmcv's batched_nms: boxes offset by class so that one NMS "
                    "serves every class")
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{
            random_boxes(size_at(s, 0), g, 800.0),
            at::randint(0, 80, {size_at(s, 0)}, g, at::TensorOptions().dtype(at::kLong))};
      })
      .body([](const Tensors& t) { return Tensors{boxes_for_nms(t[0], t[1])}; });
  // (batch); ResNet-50's first stage, 256 channels at 56 x 56 (DETR's backbone freezes its norms).
  family
      .add("frozen_batchnorm2d", {"ViewAttribute"}, "SINGLE_REPO",
           "https://github.com/facebookresearch/detr/blob/14602a71482082746399dd6bc5712a9aa8f804d2/"
           "models/backbone.py#L19")
      .axes({"batch"})
      .cases({{4}, {8}, {12}})
      .backward()
      // The features only: its weight, bias and running statistics are frozen buffers.
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::randn({size_at(s, 0), 256, 56, 56}, g), at::rand({256}, g) + 0.5,
                       at::randn({256}, g), at::randn({256}, g), at::rand({256}, g) + 0.5};
      })
      .body([](const Tensors& t) {
        return Tensors{frozen_batchnorm2d(t[0], t[1], t[2], t[3], t[4])};
      });
  // (objects an image, side of the finest level): two images of 8 x side pixels, FCOS's five levels
  // (strides 8 to 128, size ranges 64, 128, 256, 512, beyond), 80 classes.
  family
      .add("fcos_matcher",
           {"ViewAttribute", "IfElseBranch", "Reduce", "AdvancedIndexing", "ForLoop"}, "POD", "")
      // Not float16: the "infinite" area 1e10 of a location a box may not take overflows it.
      .dtypes({"float32", "float64", "bfloat16"})
      .axes({"objects_per_image", "finest_level_side"})
      .cases({{5, 128}, {5, 64}, {5, 256}})
      .host_inputs(1)
      .written_from("FCOS's compute_targets_for_locations (Tian et al. 2019), as POD's "
                    "FcosMatcher.match in LongTail-Bench's own copy "
                    "(DeepLink-org/DLOP-Bench, bench/samples/long_tail/fcos_matcher/torch_impl.py; "
                    "no centre sampling): per image, "
                    "each location's smallest box (areas with the legacy + 1) among those it lies "
                    "in and whose size suits its level")
      .inputs([](const Json& s, at::Generator& g) {
        const auto objects = size_at(s, 0), side = size_at(s, 1);
        const double extent = static_cast<double>(side * 8);
        Tensors inputs;
        for (int image = 0; image < 2; ++image) {
          const auto xy = at::rand({objects, 2}, g) * extent * 0.7;
          const auto wh = at::rand({objects, 2}, g) * extent * 0.3 + 16;
          inputs.push_back(at::cat({xy, xy + wh}, 1));
          inputs.push_back(at::randint(1, 81, {objects}, g, at::TensorOptions().dtype(at::kLong)));
        }
        inputs.push_back(at::tensor({side}));
        return inputs;
      })
      .body([](const Tensors& t) {
        // The locations of every level and their size ranges, then one assignment an image.
        const auto side = t[4].item<std::int64_t>();
        const double inf = std::numeric_limits<float>::infinity();
        const double bounds[6] = {-1, 64, 128, 256, 512, inf};
        Tensors locations, ranges;
        for (int level = 0; level < 5; ++level) {
          const auto cells = std::max<std::int64_t>(side >> level, 1);
          locations.push_back(compute_locations(cells, cells, 8LL << level, t[0].options()));
          // (LibTorch makes no half tensor from a list on the CPU: such dtypes cast a float one.)
          auto range =
              at::tensor({bounds[level], bounds[level + 1]}, t[0].options().dtype(at::kFloat));
          if (t[0].scalar_type() != at::kFloat)
            range = range.to(t[0].scalar_type());
          ranges.push_back(range.unsqueeze(0).expand({locations.back().size(0), 2}));
        }
        const auto all = at::cat(locations), all_ranges = at::cat(ranges);
        Tensors per_image;
        for (std::size_t image = 0; image + 1 < t.size(); image += 2) {
          const FcosTargets targets = fcos_matcher(all, all_ranges, t[image], t[image + 1]);
          per_image.push_back(targets.labels);
          per_image.push_back(targets.distances);
        }
        return per_image;
      });
  // (RoIs, RoI columns): 6 classes' 28 x 28 heatmaps, the RoIs of 3 images of 48 x 64 at scale 1,
  // 1.5 and 2 (LongTail-Bench's RoIs are all zeros: one-pixel masks at the corner of images of at
  // most 5 x 5).
  family
      .add("mask_predictor",
           {"InputAware", "ViewAttribute", "IfElseBranch", "AdvancedIndexing",
            "BuiltInDataStructure"},
           "POD", "")
      .axes({"rois", "roi_columns"})
      .cases({{8, 16}, {16, 16}, {32, 16}})
      .host_inputs(1)
      .host_sync("as the original: RoIs and heatmaps are copied to the host, where the masks are "
                 "resized and "
                 "pasted (numpy and OpenCV there)")
      .written_from("POD's MaskPredictor.predict, after LongTail-Bench's own copy "
                    "(DeepLink-org/DLOP-Bench, bench/samples/long_tail/"
                    "mask_predictor/torch_impl.py): per image, each RoI's class heatmap resized to "
                    "the RoI (cv2.resize's bilinear, "
                    "here LibTorch's with the same half-pixel centres), thresholded and pasted "
                    "into an empty image")
      .inputs([](const Json& s, at::Generator& g) {
        const auto n = size_at(s, 0), columns = size_at(s, 1);
        const auto info = at::tensor(std::vector<double>{96, 128, 1.0, 48, 64, 0, 72, 96, 1.5, 48,
                                                         64, 0, 96, 128, 2.0, 48, 64, 0})
                              .view({3, 6});
        auto rois = at::zeros({n, columns});
        const auto image = at::randint(0, 3, {n}, g);
        const auto scale = info.select(1, 2).index_select(0, image.to(at::kLong)).to(at::kFloat);
        const auto x1 = at::rand({n}, g) * 50, y1 = at::rand({n}, g) * 36;
        rois.select(1, 0).copy_(image);
        rois.select(1, 1).copy_(x1 * scale);
        rois.select(1, 2).copy_(y1 * scale);
        rois.select(1, 3).copy_((x1 + 4 + at::rand({n}, g) * 20) * scale);
        rois.select(1, 4).copy_((y1 + 4 + at::rand({n}, g) * 20) * scale);
        rois.select(1, 5).copy_(at::rand({n}, g));
        rois.select(1, 6).copy_(at::randint(0, 6, {n}, g));
        return Tensors{rois, at::rand({n, 6, 28, 28}, g), info};
      })
      .body([](const Tensors& t) { return mask_predictor(t[0], t[1], t[2]); });
  // (positives, negatives, RoIs an image): a sampler's 512 RoIs.
  family
      .add("get_target_single", {"IfElseBranch"}, "MMDET",
           k_mmdet + "f08548bfd6d394a82566022709b5ce9e6b0a855e/mmdet/models/roi_heads/bbox_heads/"
                     "bbox_head.py#L122")
      .axes({"positives", "negatives", "rois"})
      .cases({{42, 470, 512}, {32, 450, 512}})
      .inputs([](const Json& s, at::Generator& g) {
        const auto pos = size_at(s, 0), neg = size_at(s, 2) - pos;
        const auto pos_boxes = random_boxes(pos, g);
        const auto gt = nearby_boxes(pos_boxes, g); // drawn before the negatives, as before
        return Tensors{pos_boxes, random_boxes(neg, g), gt,
                       at::randint(0, 80, {pos}, g, at::TensorOptions().dtype(at::kLong))};
      })
      .body([](const Tensors& t) {
        const BoxTargets b = get_target_single(t[0], t[1], t[2], t[3]);
        return Tensors{b.labels, b.label_weights, b.bbox_targets, b.bbox_weights};
      });
  // (RoIs, coordinates, classes): labels drawn from the classes, 0 the background.
  family.add("bbox_expand", {"InputAware", "ViewAttribute", "IfElseBranch"}, "UNKNOWN", "")
      .axes({"rois", "coordinates", "classes"})
      .cases({{4, 4, 10}, {8, 4, 10}, {12, 4, 10}})
      .host_sync(
          "as the original: the positives are found with nonzero and each one's label is read on "
          "the host to slice its class's columns")
      .written_from("MMDetection v1's expand_target (mmdet/core/bbox/bbox_target.py), as "
                    "LongTail-Bench's own copy "
                    "(DeepLink-org/DLOP-Bench, bench/samples/long_tail/bbox_expand/torch_impl.py) "
                    "takes it: zeroed buffers filled in "
                    "place; here with 4 x classes columns, where LongTail-Bench's inputs give 4, "
                    "too few for its labels")
      .inputs([](const Json& s, at::Generator& g) {
        const auto rois = size_at(s, 0), width = size_at(s, 1), classes = size_at(s, 2);
        return Tensors{at::randn({rois, width}, g), at::rand({rois, width}, g),
                       at::randint(0, classes, {rois}, g, at::TensorOptions().dtype(at::kLong)),
                       at::zeros({rois, width * classes}), at::zeros({rois, width * classes})};
      })
      .body([](const Tensors& t) { return bbox_target_expand(t[0], t[1], t[2], t[3], t[4]); });
  family
      .add("assign_wrt_overlaps",
           {"IfElseBranch", "AdvancedIndexing", "ForLoop", "InputAware", "Customized"}, "MMDET",
           k_mmdet + "c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/core/bbox/assigners/"
                     "max_iou_assigner.py#L128")
      .axes({"gts", "proposals_x256"})
      .cases({{4, 4}})
      .host_sync(
          "as the original: a Python `if` on each gt's best overlap, and boolean-mask assignment")
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::rand({size_at(s, 0), size_at(s, 1) * 256}, g)};
      })
      .body([](const Tensors& t) { return Tensors{assign_wrt_overlaps(t[0])}; });
  family
      .add("random_sampler", {"IfElseBranch", "AdvancedIndexing", "InputAware", "ViewAttribute"},
           "MMDET",
           k_mmdet + "c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/core/bbox/samplers/"
                     "random_sampler.py#L9")
      // Integer inputs alone: a case's dtype would reach no computation.
      .dtypes({"float32"})
      .axes({"classes"})
      .cases({{4}})
      .host_sync("as the original: torch.nonzero picks the positive and negative boxes")
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{random_labels(size_at(s, 0) + 1, {4000}, g)};
      })
      .body([](const Tensors& t) { return random_sampler(t[0], 512, 0.25); });
  // The original's `device` argument: an empty tensor on the case's device; the feature-map size
  // stays on the host (a Python int there).
  family
      .add("compute_locations", {"ViewAttribute", "IfElseBranch"}, "POD", "")
      // The grid is float32 as FCOS makes it; its empty input only carries the device.
      .dtypes({"float32"})
      .axes({"locations"})
      .cases({{3000}, {2000}, {4000}})
      .host_inputs(1)
      .written_from("FCOS's compute_locations_per_level (the grid of feature-map cell centres in "
                    "image pixels), as POD uses it")
      .inputs([](const Json& s, at::Generator&) {
        return Tensors{at::empty({0}), at::full({2}, size_at(s, 0) / 50, k_long)};
      })
      .body([](const Tensors& t) {
        return Tensors{compute_locations(t[1][0].item<int64_t>(), 50, 8, t[0].options())};
      });
  family
      .add(
          "gen_base_anchors", {"ViewAttribute"}, "MMDET",
          k_mmdet +
              "4bd4ace53a626659070204236da5b8e14ae9cd08/mmdet/core/anchor/anchor_generator.py#L131")
      .axes({"base_size", "ratios", "scales"})
      .cases({{4, 3, 1}, {8, 6, 2}, {16, 12, 4}})
      .host_inputs(1)
      .inputs([](const Json& s, at::Generator&) {
        return Tensors{at::linspace(0.5, 2.0, size_at(s, 1)), at::linspace(1.0, 2.0, size_at(s, 2)),
                       at::full({1}, static_cast<double>(size_at(s, 0)))};
      })
      .body([](const Tensors& t) {
        return Tensors{gen_base_anchors(t[2].item<double>(), t[0], t[1])};
      });
  // The original's `device` argument: an empty tensor on the case's device; the sizes stay on the
  // host (Python ints there).
  family
      .add("valid_flags", {"AdvancedIndexing", "ViewAttribute"}, "MMDET",
           k_mmdet +
               "c76ab0eb3c637b86c343d8454e07e00cfecc1b78/mmdet/core/anchor/point_generator.py#L30")
      .axes({"feature_height", "feature_width", "anchors"})
      .cases({{160, 120, 3}, {320, 240, 6}, {480, 360, 9}})
      .host_inputs(1)
      .inputs([](const Json& s, at::Generator&) {
        return Tensors{at::empty({0}),
                       at::tensor({size_at(s, 0), size_at(s, 1), size_at(s, 2)}, k_long)};
      })
      .body([](const Tensors& t) {
        const auto h = t[1][0].item<int64_t>(), w = t[1][1].item<int64_t>();
        return Tensors{valid_flags(h, w, h - 3, w - 5, t[1][2].item<int64_t>(), t[0].options())};
      });
}

} // namespace opbench::samples
