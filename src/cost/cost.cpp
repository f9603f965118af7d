#include "opbench/cost/cost.hpp"

#include <algorithm>
#include <numeric>

namespace opbench::cost {
namespace {

double product(const std::vector<std::int64_t>& dims, std::size_t from = 0) {
  double p = 1;
  for (std::size_t i = from; i < dims.size(); ++i)
    p *= static_cast<double>(dims[i]);
  return p;
}

// "aten::add_.Tensor" -> "add_"
std::string base_name(const std::string& op) {
  std::string name = op;
  if (const auto colons = name.find("::"); colons != std::string::npos)
    name = name.substr(colons + 2);
  if (const auto dot = name.find('.'); dot != std::string::npos)
    name = name.substr(0, dot);
  return name;
}

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

const TensorInfo* input(const CallShapes& call, const std::string& argument) {
  for (const auto& t : call.inputs) {
    if (t.argument == argument)
      return &t;
  }
  return nullptr;
}

double out_numel(const CallShapes& call) {
  return call.outputs.empty() ? 0.0 : static_cast<double>(call.outputs.front().numel());
}

bool has_tensor(const CallShapes& call, const std::string& argument) {
  return input(call, argument) != nullptr;
}

std::optional<std::pair<double, std::string>> flops_of(const CallShapes& call) {
  const std::string name = base_name(call.op);
  // In-place and plain forms share a rule: "add_" is "add".
  const std::string plain =
      !name.empty() && name.back() == '_' ? name.substr(0, name.size() - 1) : name;
  const double out = out_numel(call);
  auto self = input(call, "self");
  if (plain == "mm" || plain == "bmm") {
    const auto* a = self;
    const auto* b = input(call, "mat2");
    if (!a || !b || a->shape.size() < 2 || b->shape.empty())
      return std::nullopt;
    return std::make_pair(2.0 * out * static_cast<double>(a->shape.back()), "2MNK");
  }
  if (plain == "addmm" || plain == "baddbmm") {
    const auto* a = input(call, plain == "addmm" ? "mat1" : "batch1");
    if (!a || a->shape.empty())
      return std::nullopt;
    return std::make_pair(2.0 * out * static_cast<double>(a->shape.back()) + out, "2MNK + MN");
  }
  if (plain == "addbmm") {
    const auto* a = input(call, "batch1");
    if (!a || a->shape.size() != 3)
      return std::nullopt;
    return std::make_pair(2.0 * out * static_cast<double>(a->shape[0] * a->shape[2]) + out,
                          "2BMNK + MN");
  }
  if (plain == "matmul") {
    const auto* b = input(call, "other");
    if (!self || !b || self->shape.empty())
      return std::nullopt;
    return std::make_pair(2.0 * std::max(out, 1.0) * static_cast<double>(self->shape.back()),
                          "2 * numel(out) * K");
  }
  if (plain == "linear") {
    const auto* x = input(call, "input");
    if (!x || x->shape.empty())
      return std::nullopt;
    const double k = static_cast<double>(x->shape.back());
    return std::make_pair(2.0 * out * k + (has_tensor(call, "bias") ? out : 0.0),
                          "2 * numel(out) * K (+ bias)");
  }
  if (plain == "mv") {
    if (!self || self->shape.size() != 2)
      return std::nullopt;
    return std::make_pair(2.0 * product(self->shape), "2MN");
  }
  if (plain == "dot" || plain == "vdot") {
    if (!self)
      return std::nullopt;
    return std::make_pair(2.0 * product(self->shape), "2N");
  }
  if (plain == "outer" || plain == "ger")
    return std::make_pair(out, "MN");
  const bool conv = plain == "conv1d" || plain == "conv2d" || plain == "conv3d" ||
                    plain == "convolution" || plain == "_convolution";
  const bool conv_t =
      plain == "conv_transpose1d" || plain == "conv_transpose2d" || plain == "conv_transpose3d";
  if (conv || conv_t) {
    const auto* x = input(call, "input");
    const auto* w = input(call, "weight");
    if (!x || !w || w->shape.size() < 3 || x->shape.size() < 2)
      return std::nullopt;
    const bool transposed = conv_t || (call.arguments.contains("transposed") &&
                                       call.arguments["transposed"].is_boolean() &&
                                       call.arguments["transposed"].get<bool>());
    const double kernel = product(w->shape, 2);
    const double bias = has_tensor(call, "bias") ? out : 0.0;
    if (transposed) {
      // weight (C_in, C_out / groups, k...): every input element scatters into C_out/groups * k.
      return std::make_pair(2.0 * product(x->shape) * static_cast<double>(w->shape[1]) * kernel +
                                bias,
                            "2 * numel(in) * (C_out / groups) * prod(kernel)");
    }
    // weight (C_out, C_in / groups, k...)
    return std::make_pair(2.0 * out * static_cast<double>(w->shape[1]) * kernel + bias,
                          "2 * numel(out) * (C_in / groups) * prod(kernel)");
  }
  if (plain == "scaled_dot_product_attention") {
    const auto* q = input(call, "query");
    const auto* k = input(call, "key");
    const auto* v = input(call, "value");
    if (!q || !k || !v || q->shape.size() < 2 || k->shape.size() < 2 || v->shape.empty())
      return std::nullopt;
    const double l = static_cast<double>(q->shape[q->shape.size() - 2]);
    const double e = static_cast<double>(q->shape.back());
    const double s = static_cast<double>(k->shape[k->shape.size() - 2]);
    const double ev = static_cast<double>(v->shape.back());
    const double batch = product(q->shape) / (l * e);
    return std::make_pair(2.0 * batch * l * s * (e + ev), "2 * B * L * S * (E + Ev)");
  }
  if (plain == "softmax" || plain == "log_softmax" || plain == "_softmax" ||
      plain == "_log_softmax") {
    if (!self)
      return std::nullopt;
    return std::make_pair(4.0 * product(self->shape), "4 per element");
  }
  if (plain == "batch_norm" || plain == "native_batch_norm") {
    const auto* x = input(call, "input");
    if (!x)
      return std::nullopt;
    return std::make_pair(2.0 * product(x->shape), "2 per element");
  }
  if (plain == "layer_norm" || plain == "group_norm" || plain == "instance_norm" ||
      plain == "native_layer_norm") {
    const auto* x = input(call, "input");
    if (!x)
      return std::nullopt;
    return std::make_pair(5.0 * product(x->shape), "5 per element");
  }
  if (contains(reduction_ops(), plain)) {
    const auto* x = self ? self : input(call, "input");
    if (!x)
      return std::nullopt;
    return std::make_pair(product(x->shape), "1 per input element");
  }
  if (contains(elementwise_ops(), plain)) {
    return std::make_pair(out, "1 per output element");
  }
  return std::nullopt;
}

// Calls that read only what an index names, not the whole table: every output element read
// once and written once, and the index (and offsets, weights) read; nullopt for other calls.
//   index_select, gather, take, embedding: 2 * bytes(out) + bytes(index)
//   embedding_bag: numel(indices) rows of weight read, bytes(out) written, indices and offsets
//   (and per_sample_weights) read
//   diag of a matrix: its diagonal read and written (2 * bytes(out))
std::optional<double> indexed_read_bytes(const CallShapes& call, const std::string& name) {
  const std::string plain =
      !name.empty() && name.back() == '_' ? name.substr(0, name.size() - 1) : name;
  auto bytes_of = [&](const char* argument) {
    const TensorInfo* t = input(call, argument);
    return t != nullptr ? static_cast<double>(t->bytes()) : 0.0;
  };
  const double out = call.outputs.empty() ? 0.0 : static_cast<double>(call.outputs[0].bytes());
  if (plain == "index_select" || plain == "gather" || plain == "take")
    return input(call, "index") != nullptr ? std::optional<double>(2 * out + bytes_of("index"))
                                           : std::nullopt;
  if (plain == "embedding")
    return input(call, "indices") != nullptr ? std::optional<double>(2 * out + bytes_of("indices"))
                                             : std::nullopt;
  if (plain == "embedding_bag" || plain == "_embedding_bag") {
    const TensorInfo* weight = input(call, "weight");
    const TensorInfo* indices = input(call, "indices");
    if (weight == nullptr || indices == nullptr || weight->shape.size() != 2)
      return std::nullopt;
    const double rows = static_cast<double>(indices->numel()) *
                        static_cast<double>(weight->shape[1] * weight->element_bytes);
    return rows + out + bytes_of("indices") + bytes_of("offsets") + bytes_of("per_sample_weights");
  }
  if (plain == "diag" || plain == "diagonal_copy") {
    const TensorInfo* self = input(call, "self");
    if (self != nullptr && self->shape.size() == 2)
      return 2 * out;
  }
  return std::nullopt;
}

} // namespace

std::int64_t TensorInfo::numel() const {
  return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}

const std::vector<std::string>& elementwise_ops() {
  static const std::vector<std::string> k_ops = {
      "add",        "sub",         "mul",         "div",         "true_divide", "remainder",
      "fmod",       "pow",         "neg",         "abs",         "reciprocal",  "sqrt",
      "rsqrt",      "exp",         "exp2",        "expm1",       "log",         "log1p",
      "log2",       "log10",       "sin",         "cos",         "tan",         "asin",
      "acos",       "atan",        "atan2",       "sinh",        "cosh",        "tanh",
      "asinh",      "acosh",       "atanh",       "sigmoid",     "relu",        "relu6",
      "leaky_relu", "elu",         "selu",        "celu",        "gelu",        "silu",
      "mish",       "hardswish",   "hardsigmoid", "hardtanh",    "softplus",    "softsign",
      "erf",        "erfc",        "floor",       "ceil",        "round",       "trunc",
      "frac",       "sign",        "clamp",       "clamp_min",   "clamp_max",   "minimum",
      "maximum",    "eq",          "ne",          "lt",          "le",          "gt",
      "ge",         "logical_and", "logical_or",  "logical_xor", "logical_not", "bitwise_and",
      "bitwise_or", "bitwise_xor", "bitwise_not", "where",       "masked_fill", "lerp",
      "addcmul",    "addcdiv",     "square",      "prelu",       "threshold",   "hypot",
      "copysign",   "nan_to_num",  "logit",       "xlogy",       "glu"};
  return k_ops;
}

const std::vector<std::string>& reduction_ops() {
  static const std::vector<std::string> k_ops = {"sum",      "mean",         "prod",
                                                 "amax",     "amin",         "max",
                                                 "min",      "norm",         "linalg_vector_norm",
                                                 "var",      "std",          "var_mean",
                                                 "std_mean", "logsumexp",    "nansum",
                                                 "nanmean",  "cumsum",       "cumprod",
                                                 "argmax",   "argmin",       "all",
                                                 "any",      "count_nonzero"};
  return k_ops;
}

Cost estimate(const CallShapes& call) {
  Cost cost;
  const std::string name = base_name(call.op);
  const bool fills_nothing =
      name == "empty" || name == "empty_like" || name == "empty_strided" || name == "new_empty";
  if (call.view || fills_nothing)
    return cost; // no data moved, no arithmetic
  const bool like = name.size() > 5 && name.compare(name.size() - 5, 5, "_like") == 0;
  if (const auto indexed = indexed_read_bytes(call, name)) {
    cost.bytes = *indexed;
  } else if (like) {
    // ones_like, zeros_like, full_like, rand_like: `self` gives a shape, no data is read.
    for (const auto& t : call.outputs)
      cost.bytes += static_cast<double>(t.bytes());
  } else {
    for (const auto& t : call.inputs)
      cost.bytes += static_cast<double>(t.bytes());
    for (const auto& t : call.outputs)
      cost.bytes += static_cast<double>(t.bytes());
  }
  if (const auto flops = flops_of(call)) {
    cost.flops = flops->first;
    cost.flops_rule = flops->second;
  }
  return cost;
}

} // namespace opbench::cost
