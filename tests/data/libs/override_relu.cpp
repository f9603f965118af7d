// An operator library that replaces ATen's own CPU kernel of relu with a clone: a library that
// overrides another's kernel, which opbench must record (catalog/libraries.hpp).
#include <ATen/ATen.h>
#include <torch/library.h>

namespace {
at::Tensor not_relu(const at::Tensor& self) {
  return self.clone();
}
} // namespace

TORCH_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("relu", &not_relu);
}
