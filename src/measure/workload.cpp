#include "opbench/measure/workload.hpp"

namespace opbench::measure {

namespace {

std::int64_t value_bytes(const c10::IValue& value) {
  if (value.isTensor()) {
    const at::Tensor& t = value.toTensor();
    return t.defined() ? static_cast<std::int64_t>(t.nbytes()) : 0;
  }
  std::int64_t bytes = 0;
  if (value.isList()) {
    for (const c10::IValue& item : value.toListRef())
      bytes += value_bytes(item);
  } else if (value.isTuple()) {
    for (const c10::IValue& item : value.toTupleRef().elements())
      bytes += value_bytes(item);
  }
  return bytes;
}

} // namespace

std::int64_t tensor_bytes(const std::vector<c10::IValue>& values) {
  std::int64_t bytes = 0;
  for (const c10::IValue& v : values)
    bytes += value_bytes(v);
  return bytes;
}

std::int64_t tensor_bytes(const std::vector<at::Tensor>& tensors) {
  std::int64_t bytes = 0;
  for (const at::Tensor& t : tensors)
    bytes += t.defined() ? static_cast<std::int64_t>(t.nbytes()) : 0;
  return bytes;
}

} // namespace opbench::measure
