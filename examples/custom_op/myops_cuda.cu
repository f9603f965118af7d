// The CUDA kernel of myops::fast_gelu, without LibTorch's headers (so any nvcc that can build for
// the GPU compiles it); myops_cuda.cpp registers it with the dispatcher.
#include <cuda_runtime.h>

#include <cstdint>

namespace myops {
namespace {

template <typename T> __global__ void fast_gelu_kernel(const T* in, T* out, std::int64_t n) {
  // x / (1 + exp(-2u)) = 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), as on the CPU.
  const T k_two_sqrt_2_over_pi = static_cast<T>(1.5957691216057308);
  const T k_cubic = static_cast<T>(0.044715);
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const T x = in[i];
    out[i] = x / (static_cast<T>(1) + exp(-k_two_sqrt_2_over_pi * (x + k_cubic * x * x * x)));
  }
}

template <typename T> cudaError_t launch(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  constexpr int k_threads = 256;
  const std::int64_t blocks = (n + k_threads - 1) / k_threads;
  fast_gelu_kernel<T>
      <<<static_cast<unsigned>(blocks < 65535 ? blocks : 65535), k_threads, 0, stream>>>(in, out,
                                                                                         n);
  return cudaGetLastError();
}

} // namespace

cudaError_t fast_gelu_cuda_float(const float* in, float* out, std::int64_t n, cudaStream_t stream) {
  return launch(in, out, n, stream);
}

cudaError_t fast_gelu_cuda_double(const double* in, double* out, std::int64_t n,
                                  cudaStream_t stream) {
  return launch(in, out, n, stream);
}

} // namespace myops
