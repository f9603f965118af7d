#pragma once
// Holding one computation's outputs against another's (a stage's against eager's,
// stages/stages.hpp): same count, shapes and dtypes, and every element within the dtype's
// tolerance.

#include <ATen/ATen.h>

#include <string>
#include <vector>

namespace opbench::measure {

// The tolerance outputs are held to, norm-wise: every element within atol + rtol * the largest
// finite magnitude of the expected output (a reduction summed in another order errs in proportion
// to its terms, not to its possibly cancelled result). rtol and atol per dtype: torch.testing's
// (float64 1e-7/1e-7, float16 1e-3/1e-5, bfloat16 1.6e-2/1e-5), but float32 rtol 1e-4, the
// tolerance of TorchInductor's accuracy check (torch._dynamo.utils.same): torch.testing's 1.3e-6 is
// under what another summation order gives (a fused 650-long matmul under tanh: 5e-5 of the largest
// output); integers and bool must be equal.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
  bool exact = true;
  // "|d| <= 1e-05 + 0.0001 * max|eager|" (`reference`: what the outputs are held against).
  std::string text(const std::string& reference = "eager") const;
};
Tolerance tolerance_for(at::ScalarType type);

// Holds `actual` against `expected`, output by output. Returns "" when every output has the same
// shape and dtype and every element is within tolerance (NaN matches NaN, an infinity itself; an
// undefined tensor only another), else what differs first, naming the expected side `reference`;
// `worst` gets the largest |actual - expected| / (atol + rtol * max |expected|) seen.
std::string outputs_differ(const std::vector<at::Tensor>& expected,
                           const std::vector<at::Tensor>& actual, double& worst,
                           const std::string& reference = "eager");

} // namespace opbench::measure
