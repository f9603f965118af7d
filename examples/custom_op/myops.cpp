// A tiny operator library, as a PyTorch extension author writes one: `myops::fast_gelu`, GELU
// with the tanh approximation (what `aten::gelu(self, approximate="tanh")` computes), registered
// with TORCH_LIBRARY and a CPU kernel; myops_cuda.cpp adds the CUDA kernel where the toolkit is.
// opbench loads the built library with `--load-library` (see README.md beside this file).
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <cmath>

namespace myops {
namespace {

// 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3): one exp, no tanh.
template <typename T> T gelu_tanh(T x) {
  constexpr T k_two_sqrt_2_over_pi = static_cast<T>(1.5957691216057308);
  constexpr T k_cubic = static_cast<T>(0.044715);
  return x / (static_cast<T>(1) + std::exp(-k_two_sqrt_2_over_pi * (x + k_cubic * x * x * x)));
}

at::Tensor fast_gelu_cpu(const at::Tensor& self) {
  const at::Tensor x = self.contiguous();
  at::Tensor out = at::empty_like(x, at::MemoryFormat::Contiguous);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "fast_gelu_cpu", [&] {
    using math_t = at::opmath_type<scalar_t>;
    const scalar_t* in = x.const_data_ptr<scalar_t>();
    scalar_t* o = out.mutable_data_ptr<scalar_t>();
    at::parallel_for(0, x.numel(), 32768, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        o[i] = static_cast<scalar_t>(gelu_tanh(static_cast<math_t>(in[i])));
    });
  });
  return out;
}

} // namespace
} // namespace myops

TORCH_LIBRARY(myops, m) {
  m.def("fast_gelu(Tensor self) -> Tensor");
}

TORCH_LIBRARY_IMPL(myops, CPU, m) {
  m.impl("fast_gelu", &myops::fast_gelu_cpu);
}
