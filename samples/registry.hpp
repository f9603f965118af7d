#pragma once
// The sample registry: metadata, an input maker that makes valid data for a catalogue case
// (boxes with x2 > x1, probabilities in (0, 1), labels in range), and the body.

#include <ATen/ATen.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "opbench/catalog/samples.hpp"

namespace opbench::samples {

using Tensors = std::vector<at::Tensor>;

// The values of a case's parameters (SampleInfo::parameters), by name: the case's own where it
// gives one, the default otherwise. Reading one the sample does not declare, or as another type,
// is a bug of the sample and throws std::logic_error.
class Params {
public:
  Params(const catalog::SampleInfo& info, const Json& given);
  std::int64_t int64(const std::string& name) const;
  double float64(const std::string& name) const;
  const std::string& string(const std::string& name) const;

private:
  const Json& at(const std::string& name, const char* type) const;
  std::string sample_;
  std::vector<std::pair<std::string, Json>> values_; // declared order
};

struct Sample {
  using Maker = std::function<Tensors(const Json& sizes, at::Generator& generator)>;
  using Body = std::function<Tensors(const Tensors& inputs)>;
  // The body of a case with these parameters: it reads them once, and the body it returns
  // holds their values, so no timed call looks a parameter up.
  using BodyOfParams = std::function<Body(const Params& params)>;
  catalog::SampleInfo info;
  // Inputs of one case: `sizes` from the catalogue; CPU tensors from `generator`.
  Maker make_inputs;
  // The computation for a case's parameters (a body without parameters ignores them).
  BodyOfParams make_body;

  // The body of the case given `given` (its sizes and parameters).
  Body bind(const Json& given) const { return make_body(Params(info, given)); }
  // The body at every parameter's default, as the catalogue's cases run it.
  Tensors body(const Tensors& inputs) const { return bind(Json::object())(inputs); }
};

// One sample being declared: chained setters complete what `Family::add` began, in the manner of
// google/benchmark's `BENCHMARK(fn)->Args({...})->ArgNames({...})`. It refers to the sample by
// its place in the registry, so later declarations do not invalidate it.
class Declaration {
public:
  Declaration(std::vector<Sample>& out, std::size_t index) : out_(&out), index_(index) {}
  // The names of a case's sizes, in order (see SampleInfo::axes).
  Declaration& axes(std::vector<std::string> names);
  // The catalogue's argument cases, one size per axis each.
  Declaration& cases(const std::vector<std::vector<std::int64_t>>& sizes);
  // Time the backward pass too (the original is differentiable).
  Declaration& backward();
  // Only these inputs require grad in backward (see SampleInfo::grad_inputs).
  Declaration& grad_inputs(std::vector<std::size_t> positions);
  // Fewer dtypes than every floating one (see SampleInfo::dtypes): float32 alone where the
  // case's dtype would reach no computation (no floating input), or where a constant of the
  // original does not fit a narrower type.
  Declaration& dtypes(std::vector<std::string> names);
  Declaration& host_inputs(std::size_t count);
  Declaration& host_sync(std::string why);
  Declaration& written_from(std::string what);
  // Parameters of the original's signature, typed, with its default (see SampleInfo::parameters),
  // in the manner of nvbench's add_int64_axis / add_float64_axis / add_string_axis. A string
  // parameter's first choice is its default.
  Declaration& int64_param(std::string name, std::int64_t default_value, std::int64_t min,
                           std::int64_t max);
  Declaration& float64_param(std::string name, double default_value, double min, double max);
  Declaration& string_param(std::string name, std::vector<std::string> choices);
  Declaration& inputs(Sample::Maker make);
  // The computation; the second form reads the case's parameters once and returns the body:
  //   .body([](const Params& p) { const double beta = p.float64("beta");
  //                               return Sample::Body([beta](const Tensors& t) { ... }); })
  Declaration& body(Sample::Body body);
  Declaration& body(Sample::BodyOfParams body);

private:
  catalog::SampleInfo& info() { return (*out_)[index_].info; }
  std::vector<Sample>* out_;
  std::size_t index_;
};

// The samples of one family file (box coders, losses, ...): each is declared where its body is
// defined, and knows its file.
//   Family family(out, "box_samples.cpp");
//   family.add("bbox2delta", {"ViewAttribute"}, "MMDET", url)
//       .axes({"boxes", "coordinates"}).cases({{3000, 4}, {2000, 4}}).backward()
//       .inputs([](const Json& s, at::Generator& g) { ... })
//       .body([](const Tensors& t) { ... });
class Family {
public:
  Family(std::vector<Sample>& out, std::string file) : out_(out), file_(std::move(file)) {}
  // `url`: the function it reproduces; "" when the catalogue gives none (then `written_from`).
  Declaration add(std::string name, std::vector<std::string> tags, std::string source,
                  std::string url);

private:
  std::vector<Sample>& out_;
  std::string file_;
};

// Throws std::logic_error naming the sample and its file when its declaration is incomplete: no
// cases, no input maker or body, no axes, a case with another number of sizes than axes, or
// backward without grad_inputs (or grad_inputs without backward), or a dtype that is no floating
// one (or none), or a parameter named like an axis or another parameter, or whose default it
// does not accept.
void check_declared(const Sample& sample);

// Every sample, registered by the sample files (each checked with check_declared).
const std::vector<Sample>& registry();
// The sample called `name`, nullptr when none.
const Sample* find(const std::string& name);

// A case's inputs where it runs: the floating ones cast to `dtype` (one of SampleInfo::dtypes) and
// every one moved to `device`, except the last `host_inputs`, which stay on the CPU as made.
// Returns how many are on the device (the first ones).
std::size_t place_inputs(const Sample& sample, Tensors& inputs, at::ScalarType dtype,
                         const at::Device& device);

// A catalogue case, {"sizes": [...]}, and its i-th size.
Json sizes_case(std::vector<std::int64_t> sizes);
std::int64_t size_at(const Json& sizes, std::size_t i);

// Integer tensors (labels, indices, counts).
inline const at::TensorOptions k_long = at::TensorOptions().dtype(at::kLong);
// Labels: int64 values in [0, high) of `shape`.
at::Tensor random_labels(std::int64_t high, at::IntArrayRef shape, at::Generator& generator);

// Valid random boxes (x1, y1, x2, y2) with x2 > x1 and y2 > y1, n of them.
at::Tensor random_boxes(std::int64_t n, at::Generator& generator, double extent = 100.0);
// A ground truth near each box (N, 4): each coordinate moved by a normal of `spread` times the
// box's width (x) or height (y), as a matcher would assign.
at::Tensor nearby_boxes(const at::Tensor& boxes, at::Generator& generator, double spread = 0.1);

// Registration functions of the sample files.
void register_box_samples(std::vector<Sample>& out);
void register_loss_samples(std::vector<Sample>& out);
void register_detr_samples(std::vector<Sample>& out);
void register_layer_samples(std::vector<Sample>& out);
void register_yolact_samples(std::vector<Sample>& out);
void register_recommendation_samples(std::vector<Sample>& out);
void register_detection_block_samples(std::vector<Sample>& out);
void register_bucketing_coder_samples(std::vector<Sample>& out);
void register_pose_action_samples(std::vector<Sample>& out);
void register_sequence_samples(std::vector<Sample>& out);
void register_segmentation_samples(std::vector<Sample>& out);

} // namespace opbench::samples
