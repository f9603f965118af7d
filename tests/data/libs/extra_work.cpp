// An operator library whose one operator does more when told to: the same case, a changed build.
// `opbench_test::exp_extra(Tensor self) -> Tensor` returns exp(self); with OPBENCH_TEST_EXTRA=F
// (a fraction, read once when the library is loaded) it also takes exp of the first F of the
// elements again, a chunk at a time into one buffer of at most 64 KiB (under glibc's mmap
// threshold: no page faults of its own), live beside the output: about (1 + F) times the work
// and the buffer's bytes more at the peak. Loaded by tests (a memory regression the gate must
// catch) and by bench/compare_exit.sh (one case made slower among the default suite's). Linked a
// second time with extra_build.cpp compiled with OPBENCH_TEST_EXTRA_SLOW_BUILD
// (libopbench_test_extra_slow.so): a changed build of the library for `opbench ab --base-library
// --new-library`, whose fraction is OPBENCH_TEST_EXTRA_SLOW (default 0.5). This file is compiled
// once for both; extra_build.cpp says which build a library is.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdlib>

#include "extra_build.hpp"

namespace {

double extra_fraction() {
  static const double fraction = [] {
    const char* text = std::getenv(opbench_test_extra_variable);
    const double f = text == nullptr ? opbench_test_extra_default : std::atof(text);
    return f > 0.0 && f <= 1.0 ? f : 0.0;
  }();
  return fraction;
}

at::Tensor exp_extra(const at::Tensor& self) {
  at::Tensor out = at::exp(self);
  const auto extra = static_cast<int64_t>(extra_fraction() * static_cast<double>(self.numel()));
  if (extra > 0) {
    const int64_t chunk = std::min<int64_t>(extra, 65536 / self.element_size());
    at::Tensor buffer = at::empty({chunk}, self.options());
    const at::Tensor flat = self.reshape({-1});
    for (int64_t done = 0; done < extra; done += chunk) {
      const int64_t n = std::min(chunk, extra - done);
      at::Tensor part = buffer.narrow(0, 0, n);
      at::exp_out(part, flat.narrow(0, done, n));
    }
  }
  return out;
}

} // namespace

TORCH_LIBRARY(opbench_test, m) {
  m.def("exp_extra(Tensor self) -> Tensor");
}

TORCH_LIBRARY_IMPL(opbench_test, CompositeExplicitAutograd, m) {
  m.impl("exp_extra", &exp_extra);
}
