#pragma once
// Small helpers of the sample tests: a float tensor from values, and "close" with the sizes
// checked first and both tensors printed on failure.

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <vector>

namespace opbench::testing {

inline at::Tensor floats(std::vector<float> v) { return at::tensor(v); }

inline void expect_tensors_close(const at::Tensor& a, const at::Tensor& b, double tol = 1e-5) {
  ASSERT_EQ(a.sizes(), b.sizes()) << a << "\nvs\n" << b;
  EXPECT_TRUE(at::allclose(a, b, tol, tol)) << a << "\nvs\n" << b;
}

}  // namespace opbench::testing
