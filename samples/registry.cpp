#include "registry.hpp"
#include "infos.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "opbench/core/dtype.hpp"

namespace opbench::samples {

const std::vector<Sample>& registry() {
  static const std::vector<Sample> k_samples = [] {
    std::vector<Sample> all;
    register_box_samples(all);
    register_loss_samples(all);
    register_detr_samples(all);
    register_layer_samples(all);
    register_yolact_samples(all);
    register_recommendation_samples(all);
    register_detection_block_samples(all);
    register_bucketing_coder_samples(all);
    register_pose_action_samples(all);
    register_sequence_samples(all);
    register_segmentation_samples(all);
    for (const auto& sample : all)
      check_declared(sample);
    return all;
  }();
  return k_samples;
}

std::size_t place_inputs(const Sample& sample, Tensors& inputs, at::ScalarType dtype,
                         const at::Device& device) {
  const std::size_t on_device = inputs.size() - std::min(inputs.size(), sample.info.host_inputs);
  for (std::size_t i = 0; i < on_device; ++i) {
    at::Tensor& t = inputs[i];
    t = t.to(device, at::isFloatingType(t.scalar_type()) ? dtype : t.scalar_type());
  }
  return on_device;
}

void check_declared(const Sample& sample) {
  const auto& info = sample.info;
  const auto fail = [&](const std::string& what) {
    throw std::logic_error("sample " + info.name + " (samples/" + info.file + "): " + what);
  };
  if (info.cases.empty())
    fail("no cases: declare them with .cases({{...}, ...})");
  if (info.axes.empty())
    fail("no axes: name each size of a case with .axes({...})");
  if (!sample.make_inputs)
    fail("no input maker: declare it with .inputs(...)");
  if (!sample.make_body)
    fail("no body: declare it with .body(...)");
  if (!info.grad_inputs.empty() && !info.backward)
    fail("grad_inputs without backward: declare .backward() too");
  if (info.dtypes.empty())
    fail("no dtypes: a case needs at least one");
  for (const auto& dtype : info.dtypes) {
    if (!core::is_floating_dtype(dtype)) {
      fail("dtype '" + dtype + "' is no floating dtype (float32, float64, float16, bfloat16)");
    }
  }
  if (info.backward && info.grad_inputs.empty()) {
    fail("backward without grad_inputs: name the inputs training differentiates with "
         ".grad_inputs({...})");
  }
  for (std::size_t i = 0; i < info.parameters.size(); ++i) {
    const auto& p = info.parameters[i];
    if (p.name.empty() || p.name == "sizes" || p.name == "unused")
      fail("parameter named '" + p.name + "': name it as the original does");
    if (std::find(info.axes.begin(), info.axes.end(), p.name) != info.axes.end()) {
      fail("parameter '" + p.name + "' has the name of an axis");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (info.parameters[j].name == p.name)
        fail("two parameters named '" + p.name + "'");
    }
    if (!p.accepts(p.default_value))
      fail("parameter '" + p.name + "': its default " + p.default_value.dump() + " is not " +
           p.domain());
  }
  for (const auto& c : info.cases) {
    const auto& sizes = c.at("sizes");
    if (sizes.size() != info.axes.size()) {
      fail("case " + sizes.dump() + " has " + std::to_string(sizes.size()) +
           " sizes, expected one per axis (" + std::to_string(info.axes.size()) + ")");
    }
  }
}

const Sample* find(const std::string& name) {
  for (const auto& s : registry()) {
    if (s.info.name == name)
      return &s;
  }
  return nullptr;
}

Declaration Family::add(std::string name, std::vector<std::string> tags, std::string source,
                        std::string url) {
  catalog::SampleInfo info;
  info.name = std::move(name);
  info.tags = std::move(tags);
  info.source = std::move(source);
  info.url = std::move(url);
  info.file = file_;
  out_.push_back({std::move(info), {}, {}});
  return Declaration(out_, out_.size() - 1);
}

Declaration& Declaration::axes(std::vector<std::string> names) {
  info().axes = std::move(names);
  return *this;
}

Declaration& Declaration::cases(const std::vector<std::vector<std::int64_t>>& sizes) {
  info().cases.clear();
  for (const auto& s : sizes)
    info().cases.push_back(sizes_case(s));
  return *this;
}

Declaration& Declaration::backward() {
  info().backward = true;
  return *this;
}

Declaration& Declaration::grad_inputs(std::vector<std::size_t> positions) {
  info().grad_inputs = std::move(positions);
  return *this;
}

Declaration& Declaration::dtypes(std::vector<std::string> names) {
  info().dtypes = std::move(names);
  return *this;
}

Declaration& Declaration::host_inputs(std::size_t count) {
  info().host_inputs = count;
  return *this;
}

Declaration& Declaration::host_sync(std::string why) {
  info().host_sync = std::move(why);
  return *this;
}

Declaration& Declaration::written_from(std::string what) {
  info().written_from = std::move(what);
  return *this;
}

Declaration& Declaration::int64_param(std::string name, std::int64_t default_value,
                                      std::int64_t min, std::int64_t max) {
  info().parameters.push_back(
      catalog::SampleParameter::int64(std::move(name), default_value, min, max));
  return *this;
}

Declaration& Declaration::float64_param(std::string name, double default_value, double min,
                                        double max) {
  info().parameters.push_back(
      catalog::SampleParameter::float64(std::move(name), default_value, min, max));
  return *this;
}

Declaration& Declaration::string_param(std::string name, std::vector<std::string> choices) {
  info().parameters.push_back(
      catalog::SampleParameter::string(std::move(name), std::move(choices)));
  return *this;
}

Declaration& Declaration::inputs(Sample::Maker make) {
  (*out_)[index_].make_inputs = std::move(make);
  return *this;
}

Declaration& Declaration::body(Sample::Body body) {
  (*out_)[index_].make_body = [body = std::move(body)](const Params&) { return body; };
  return *this;
}

Declaration& Declaration::body(Sample::BodyOfParams body) {
  (*out_)[index_].make_body = std::move(body);
  return *this;
}

Params::Params(const catalog::SampleInfo& info, const Json& given) : sample_(info.name) {
  for (const auto& p : info.parameters) {
    const auto at = given.find(p.name);
    values_.emplace_back(p.name, at == given.end() ? p.default_value : *at);
  }
}

const Json& Params::at(const std::string& name, const char* type) const {
  for (const auto& [n, value] : values_) {
    if (n != name)
      continue;
    const std::string wanted = type;
    const bool fits = wanted == "string"  ? value.is_string()
                      : wanted == "int64" ? value.is_number_integer()
                                          : value.is_number();
    if (!fits)
      throw std::logic_error("sample " + sample_ + " reads parameter '" + name + "' as " + type +
                             ", but it is " + value.dump());
    return value;
  }
  throw std::logic_error("sample " + sample_ + " reads parameter '" + name +
                         "', which it does not declare");
}

std::int64_t Params::int64(const std::string& name) const {
  return at(name, "int64").get<std::int64_t>();
}
double Params::float64(const std::string& name) const {
  return at(name, "float64").get<double>();
}
const std::string& Params::string(const std::string& name) const {
  return at(name, "string").get_ref<const std::string&>();
}

Json sizes_case(std::vector<std::int64_t> sizes) {
  return {{"sizes", std::move(sizes)}};
}

std::int64_t size_at(const Json& sizes, std::size_t i) {
  return sizes.at(i).get<std::int64_t>();
}

at::Tensor random_labels(std::int64_t high, at::IntArrayRef shape, at::Generator& generator) {
  return at::randint(0, high, shape, generator, k_long);
}

at::Tensor random_boxes(std::int64_t n, at::Generator& generator, double extent) {
  const at::Tensor xy = at::rand({n, 2}, generator) * extent;
  const at::Tensor wh = at::rand({n, 2}, generator) * extent * 0.5 + 1.0;
  return at::cat({xy, xy + wh}, 1);
}

at::Tensor nearby_boxes(const at::Tensor& boxes, at::Generator& generator, double spread) {
  const at::Tensor size = (boxes.narrow(1, 2, 2) - boxes.narrow(1, 0, 2)).repeat({1, 2});
  return boxes + at::randn({boxes.size(0), 4}, generator) * spread * size;
}

} // namespace opbench::samples

namespace opbench::samples {

const std::vector<catalog::SampleInfo>& sample_infos() {
  static const std::vector<catalog::SampleInfo> k_infos = [] {
    std::vector<catalog::SampleInfo> infos;
    for (const auto& s : registry())
      infos.push_back(s.info);
    return infos;
  }();
  return k_infos;
}

} // namespace opbench::samples
