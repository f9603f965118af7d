#pragma once
// The sample registry: metadata, an input maker that makes valid data for a catalogue case
// (boxes with x2 > x1, probabilities in (0, 1), labels in range), and the body.

#include <ATen/ATen.h>

#include <functional>
#include <vector>

#include "opbench/catalog/samples.hpp"

namespace opbench::samples {

using Tensors = std::vector<at::Tensor>;

struct Sample {
  using Maker = std::function<Tensors(const Json& sizes, at::Generator& generator)>;
  using Body = std::function<Tensors(const Tensors& inputs)>;
  catalog::SampleInfo info;
  // Inputs of one case: `sizes` from the catalogue; CPU tensors from `generator`.
  std::function<Tensors(const Json& sizes, at::Generator& generator)> make_inputs;
  std::function<Tensors(const Tensors& inputs)> body;
};

// Every sample, registered by the sample files.
const std::vector<Sample>& registry();
// The sample called `name`, nullptr when none.
const Sample* find(const std::string& name);

// A catalogue case, {"sizes": [...]}, and its i-th size.
Json sizes_case(std::vector<std::int64_t> sizes);
std::int64_t size_at(const Json& sizes, std::size_t i);

// Valid random boxes (x1, y1, x2, y2) with x2 > x1 and y2 > y1, n of them.
at::Tensor random_boxes(std::int64_t n, at::Generator& generator, double extent = 100.0);
// A ground truth near each box (N, 4): each coordinate moved by a normal of `spread` times the
// box's width (x) or height (y), as a matcher would assign.
at::Tensor nearby_boxes(const at::Tensor& boxes, at::Generator& generator, double spread = 0.1);

// Registration functions of the sample files.
void register_box_samples(std::vector<Sample>& out);
void register_loss_samples(std::vector<Sample>& out);
void register_misc_samples(std::vector<Sample>& out);
void register_more_samples(std::vector<Sample>& out);
void register_yolact_samples(std::vector<Sample>& out);
void register_recommendation_samples(std::vector<Sample>& out);
void register_detection_block_samples(std::vector<Sample>& out);
void register_bucketing_coder_samples(std::vector<Sample>& out);
void register_pose_action_samples(std::vector<Sample>& out);
void register_sequence_samples(std::vector<Sample>& out);
void register_segmentation_samples(std::vector<Sample>& out);

}  // namespace opbench::samples
