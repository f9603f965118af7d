// Pose and action training pieces: MMPose's associative-embedding and joints MSE losses, landmark
// heatmaps, MMAction2's BMN loss and loss parsing.
#include "pose_action_ops.hpp"
#include "registry.hpp"

namespace opbench::samples {

std::pair<at::Tensor, at::Tensor> ae_loss(const at::Tensor& tags, const at::Tensor& joints) {
  const auto j = joints.accessor<std::int64_t, 4>();
  std::vector<at::Tensor> pushes, pulls;
  for (std::int64_t image = 0; image < tags.size(0); ++image) {
    const auto pred_tag = tags[image];
    std::vector<at::Tensor> means;
    at::Tensor pull = at::zeros({}, tags.options());
    for (std::int64_t person = 0; person < joints.size(1); ++person) {
      std::vector<at::Tensor> own;
      for (std::int64_t k = 0; k < joints.size(2); ++k) {
        if (j[image][person][k][1] > 0)
          own.push_back(pred_tag[j[image][person][k][0]]);
      }
      if (own.empty())
        continue;
      const auto stacked = at::stack(own);
      means.push_back(stacked.mean(0));
      pull = pull + (stacked - means.back().expand_as(stacked)).pow(2).mean();
    }
    const auto n = static_cast<std::int64_t>(means.size());
    if (n < 2) {
      pushes.push_back(at::zeros({}, tags.options()));
      pulls.push_back(n == 0 ? at::zeros({}, tags.options()) : pull);
      continue;
    }
    const auto a = at::stack(means).expand({n, n});
    const auto diff = a - a.permute({1, 0});
    const auto push = at::exp(-diff.pow(2)).sum() - static_cast<double>(n);
    pushes.push_back(push / static_cast<double>((n - 1) * n) * 0.5);
    pulls.push_back(pull / static_cast<double>(n));
  }
  return {at::stack(pushes), at::stack(pulls)};
}

at::Tensor landmark2heatmap(const at::Tensor& landmarks, const at::Tensor& x_bias,
                            const at::Tensor& y_bias, double inv_std) {
  using at::indexing::None;
  using at::indexing::Slice;
  const auto count = landmarks.size(-1) / 2;
  const auto x = landmarks.index({Slice(), Slice(0, None, 2)}).reshape({-1, count, 1});
  const auto y = landmarks.index({Slice(), Slice(1, None, 2)}).reshape({-1, count, 1});
  const auto gaussian_x = at::exp(-at::sqrt(at::abs((x - x_bias) * inv_std) + 1e-4)).unsqueeze(2);
  const auto gaussian_y = at::exp(-at::sqrt(at::abs((y - y_bias) * inv_std) + 1e-4)).unsqueeze(3);
  return at::matmul(gaussian_y, gaussian_x);
}

std::pair<at::Tensor, std::vector<double>> parse_losses(const std::vector<NamedLoss>& losses) {
  std::vector<std::pair<std::string, at::Tensor>> log;
  for (const auto& l : losses) {
    if (!l.is_list) {
      log.emplace_back(l.name, l.values.front().mean());
    } else {
      at::Tensor sum = l.values.front().mean();
      for (std::size_t i = 1; i < l.values.size(); ++i)
        sum = sum + l.values[i].mean();
      log.emplace_back(l.name, sum);
    }
  }
  at::Tensor loss;
  for (const auto& [name, value] : log) {
    if (name.find("loss") == std::string::npos)
      continue;
    loss = loss.defined() ? loss + value : value;
  }
  log.emplace_back("loss", loss);
  std::vector<double> values;
  for (const auto& entry : log)
    values.push_back(entry.second.item<double>());
  return {loss, values};
}

namespace {

// COCO's 17 keypoints, up to 30 people an image (MMPose's bottom-up defaults).
constexpr std::int64_t k_joints = 17, k_people = 30;

} // namespace

at::Tensor bmn_loss(const at::Tensor& pred, const at::Tensor& gt, double threshold, double eps) {
  const auto p = pred.reshape(-1), g = gt.reshape(-1);
  const auto pmask = (g > threshold).to(p.scalar_type());
  const auto num_pos = pmask.sum().clamp_min(1.0);
  const auto ratio = static_cast<double>(p.numel()) / num_pos;
  const auto coef_0 = 0.5 * ratio / (ratio - 1).clamp_min(eps);
  const auto coef_1 = 0.5 * ratio;
  const auto loss = coef_1 * pmask * at::log(p + eps) + coef_0 * (1 - pmask) * at::log(1 - p + eps);
  return -loss.mean();
}

at::Tensor joints_mse_loss(const at::Tensor& output, const at::Tensor& target,
                           const at::Tensor& weight) {
  const int64_t b = output.size(0), joints = output.size(1);
  const auto pred = output.reshape({b, joints, -1}).split(1, 1),
             gt = target.reshape({b, joints, -1}).split(1, 1);
  at::Tensor loss = at::zeros({}, output.options());
  for (int64_t j = 0; j < joints; ++j) {
    const auto w = weight.select(1, j);
    loss = loss + 0.5 * at::mse_loss(pred[j].squeeze(1) * w, gt[j].squeeze(1) * w);
  }
  return loss / static_cast<double>(joints);
}

void register_pose_action_samples(std::vector<Sample>& out) {
  Family family(out, "pose_action_samples.cpp");
  // .grad_inputs({0}): where LongTail-Bench times backward, the prediction alone requires grad
  // (its args_adaptor); targets, labels and weights are constants, as in training.
  // (images, heatmap height, width); a third of the people slots empty, a fifth of the joints
  // unseen.
  family
      .add("aeloss", {"ForLoop", "ViewAttribute", "Reduce"}, "MMPOSE",
           "https://github.com/open-mmlab/mmpose/blob/c0d5e4c2b39a1ebeca4be2c6c6358c33a9a5012d/"
           "mmpose/models/losses/"
           "multi_loss_factory.py#L68")
      .axes({"images", "heatmap_height", "heatmap_width"})
      .cases({{4, 12, 12}, {4, 16, 16}, {4, 8, 8}})
      .backward()
      .grad_inputs({0})
      .host_inputs(1)
      .inputs([](const Json& s, at::Generator& g) {
        const auto images = size_at(s, 0), h = size_at(s, 1), w = size_at(s, 2);
        const auto options = at::TensorOptions().dtype(at::kLong);
        const auto cell = at::randint(0, h * w, {images, k_people, k_joints}, g, options);
        const auto index = cell + at::arange(k_joints, options) * (h * w);
        const auto present = at::rand({images, k_people, 1}, g) > 1.0 / 3;
        const auto visible =
            (at::rand({images, k_people, k_joints}, g) > 0.2).logical_and(present).to(at::kLong);
        return Tensors{at::randn({images, k_joints * h * w, 1}, g),
                       at::stack({index, visible}, -1)};
      })
      .body([](const Tensors& t) {
        auto [push, pull] = ae_loss(t[0], t[1]);
        return Tensors{push, pull};
      });
  // (faces, 2 x 39 landmark coordinates), 64 x 64 heatmaps.
  // (faces, coordinates): 39 landmarks a face, the module's 256-point grids. LongTail-Bench draws
  // the landmarks from a normal times 100, which leaves every map at about 0; here in [-1, 1],
  // the grid's range.
  family.add("landmark2heatmap", {"ViewAttribute"}, "UNKNOWN", "")
      .axes({"faces", "coordinates"})
      .cases({{30, 78}, {4, 78}, {16, 78}})
      .written_from(
          "a face generator's landmark heatmaps (FaceGenerator_Subnet.landmark2heatmap: separable "
          "exp(-sqrt(20 |d|)) "
          "maps on a 256-point grid, their outer product by a matmul) as LongTail-Bench's own copy "
          "(DeepLink-org/DLOP-Bench, bench/samples/long_tail/landmark2heatmap/torch_impl.py)")
      .inputs([](const Json& s, at::Generator& g) {
        const auto grid = at::linspace(-1.0, 1.0, 256).view({1, 1, 256});
        return Tensors{at::rand({size_at(s, 0), size_at(s, 1)}, g) * 2 - 1, grid, grid.clone()};
      })
      .body([](const Tensors& t) { return Tensors{landmark2heatmap(t[0], t[1], t[2])}; });
  // (elements a loss, entries): the entries but the last are losses, every other one a list of
  // two tensors; the last is an accuracy (logged, not summed).
  family
      .add("parse_loss", {"ForLoop", "IfElseBranch", "Reduce", "AdvancedIndexing"}, "MMACTION2",
           "https://github.com/open-mmlab/mmaction2/blob/48ba0fb6dbceb0084f95f4ec288b23b244d2c360/"
           "mmaction/models/"
           "skeleton_gcn/base.py#L65")
      .axes({"elements", "entries"})
      .cases({{32, 4}, {16, 4}, {64, 4}})
      .backward()
      .grad_inputs({0}) // the first loss alone, as LongTail-Bench's loss_cls
      .host_sync("as the original: every logged value is read on the host (.item())")
      .inputs([](const Json& s, at::Generator& g) {
        Tensors values;
        for (std::int64_t entry = 0; entry < size_at(s, 1); ++entry) {
          const bool list = entry % 2 == 1 && entry + 1 < size_at(s, 1);
          for (int i = 0; i < (list ? 2 : 1); ++i)
            values.push_back(at::rand({size_at(s, 0)}, g));
        }
        return values;
      })
      .body([](const Tensors& t) {
        std::vector<NamedLoss> losses;
        for (std::size_t i = 0; i < t.size();) {
          const std::size_t entry = losses.size();
          if (i + 1 == t.size()) {
            losses.push_back({"top1_acc", {t[i]}, false});
            break;
          }
          const bool list = entry % 2 == 1;
          losses.push_back({"loss_" + std::to_string(entry),
                            {t.begin() + i, t.begin() + i + (list ? 2 : 1)},
                            list});
          i += list ? 2 : 1;
        }
        const auto parsed = parse_losses(losses);
        return Tensors{parsed.first};
      });
  family
      .add("bmn_loss", {"ViewAttribute", "Reduce"}, "MMACTION2",
           "https://github.com/open-mmlab/mmaction2/blob/d5ab34805fe6a02bb98e4af158626a21790b6974/"
           "mmaction/models/losses/bmn_loss.py#L11")
      .axes({"batch", "temporal_scale"})
      .cases({{8, 32}, {16, 16}, {16, 8}})
      .backward()
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        return Tensors{at::rand({size_at(s, 0), 100, size_at(s, 1)}, g) * 0.98 + 0.01,
                       at::rand({size_at(s, 0), 100, size_at(s, 1)}, g)};
      })
      .body([](const Tensors& t) { return Tensors{bmn_loss(t[0], t[1])}; });
  family
      .add("joints_mse_loss", {"ViewAttribute", "ForLoop", "IfElseBranch", "Reduce"}, "MMPOSE",
           "https://github.com/open-mmlab/mmpose/blob/c85159da60f25bc6bbab763c37c2be1e49e4052f/"
           "mmpose/models/losses/mse_loss.py#L9")
      .axes({"heatmap_side_x10"})
      .cases({{300}, {600}, {800}})
      .backward()
      .grad_inputs({0})
      .inputs([](const Json& s, at::Generator& g) {
        const auto hw = size_at(s, 0) / 10;
        return Tensors{at::rand({4, 17, hw, hw}, g), at::rand({4, 17, hw, hw}, g),
                       at::rand({4, 17, 1}, g)};
      })
      .body([](const Tensors& t) { return Tensors{joints_mse_loss(t[0], t[1], t[2])}; });
}

} // namespace opbench::samples
