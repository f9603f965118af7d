// Registers myops::fast_gelu's CUDA kernel (myops_cuda.cu) for float32 and float64; other dtypes
// are refused the way ATen refuses them, so opbench reports those cases as skipped.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include <cuda_runtime.h>

#include <cstdint>

namespace myops {

cudaError_t fast_gelu_cuda_float(const float* in, float* out, std::int64_t n, cudaStream_t stream);
cudaError_t fast_gelu_cuda_double(const double* in, double* out, std::int64_t n,
                                  cudaStream_t stream);

namespace {

at::Tensor fast_gelu_cuda(const at::Tensor& self) {
  const c10::cuda::CUDAGuard guard(self.device());
  const at::Tensor x = self.contiguous();
  at::Tensor out = at::empty_like(x, at::MemoryFormat::Contiguous);
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  cudaError_t status = cudaSuccess;
  if (x.scalar_type() == at::kFloat) {
    status = fast_gelu_cuda_float(x.const_data_ptr<float>(), out.mutable_data_ptr<float>(),
                                  x.numel(), stream);
  } else if (x.scalar_type() == at::kDouble) {
    status = fast_gelu_cuda_double(x.const_data_ptr<double>(), out.mutable_data_ptr<double>(),
                                   x.numel(), stream);
  } else {
    TORCH_CHECK(false, "\"fast_gelu_cuda\" not implemented for '", x.scalar_type(), "'");
  }
  TORCH_CHECK(status == cudaSuccess, "fast_gelu_cuda: ", cudaGetErrorString(status));
  return out;
}

} // namespace
} // namespace myops

TORCH_LIBRARY_IMPL(myops, CUDA, m) {
  m.impl("fast_gelu", &myops::fast_gelu_cuda);
}
