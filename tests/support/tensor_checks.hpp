#pragma once
// Small helpers of the sample tests: float and int64 tensors from values, a seeded CPU
// generator, and "close" with the sizes checked first and both tensors printed on failure.

#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cstdint>

#include <vector>

namespace opbench::testing {

inline at::Tensor floats(std::vector<float> v) {
  return at::tensor(v);
}
inline at::Tensor longs(std::vector<std::int64_t> v) {
  return at::tensor(v, at::TensorOptions().dtype(at::kLong));
}
inline at::Generator seeded(std::uint64_t seed) {
  return at::make_generator<at::CPUGeneratorImpl>(seed);
}

inline void expect_tensors_close(const at::Tensor& a, const at::Tensor& b, double tol = 1e-5) {
  ASSERT_EQ(a.sizes(), b.sizes()) << a << "\nvs\n" << b;
  EXPECT_TRUE(at::allclose(a, b, tol, tol)) << a << "\nvs\n" << b;
}

// Both compared as float32 (integer results against float answers too).
inline void expect_float_close(const at::Tensor& a, const at::Tensor& b, double tol = 1e-4) {
  expect_tensors_close(a.to(at::kFloat), b.to(at::kFloat), tol);
}

} // namespace opbench::testing
