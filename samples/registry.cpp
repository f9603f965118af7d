#include "registry.hpp"

namespace opbench::samples {

const std::vector<Sample>& registry() {
  static const std::vector<Sample> k_samples = [] {
    std::vector<Sample> all;
    register_box_samples(all);
    register_loss_samples(all);
    register_misc_samples(all);
    register_more_samples(all);
    register_yolact_samples(all);
    register_recommendation_samples(all);
    register_detection_block_samples(all);
    register_bucketing_coder_samples(all);
    register_pose_action_samples(all);
    register_sequence_samples(all);
    register_segmentation_samples(all);
    return all;
  }();
  return k_samples;
}

const Sample* find(const std::string& name) {
  for (const auto& s : registry()) {
    if (s.info.name == name) return &s;
  }
  return nullptr;
}

Json sizes_case(std::vector<std::int64_t> sizes) { return {{"sizes", std::move(sizes)}}; }

std::int64_t size_at(const Json& sizes, std::size_t i) { return sizes.at(i).get<std::int64_t>(); }

at::Tensor random_boxes(std::int64_t n, at::Generator& generator, double extent) {
  const at::Tensor xy = at::rand({n, 2}, generator) * extent;
  const at::Tensor wh = at::rand({n, 2}, generator) * extent * 0.5 + 1.0;
  return at::cat({xy, xy + wh}, 1);
}

at::Tensor nearby_boxes(const at::Tensor& boxes, at::Generator& generator, double spread) {
  const at::Tensor size = (boxes.narrow(1, 2, 2) - boxes.narrow(1, 0, 2)).repeat({1, 2});
  return boxes + at::randn({boxes.size(0), 4}, generator) * spread * size;
}

}  // namespace opbench::samples

namespace opbench::catalog {

const std::vector<SampleInfo>& sample_infos() {
  static const std::vector<SampleInfo> k_infos = [] {
    std::vector<SampleInfo> infos;
    for (const auto& s : samples::registry()) infos.push_back(s.info);
    return infos;
  }();
  return k_infos;
}

}  // namespace opbench::catalog
