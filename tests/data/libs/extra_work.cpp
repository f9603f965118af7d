// An operator library whose one operator does more when told to: the same case, a changed build.
// `opbench_test::exp_extra(Tensor self) -> Tensor` returns exp(self); with OPBENCH_TEST_EXTRA=F
// (a fraction, read once when the library is loaded) it also takes exp of the first F of the
// elements again, a chunk at a time into one buffer of at most 64 KiB (under glibc's mmap
// threshold: no page faults of its own), live beside the output: about (1 + F) times the work
// and the buffer's bytes more at the peak. Loaded by tests (a memory regression the gate must
// catch) and by bench/compare_exit.sh (one case made slower among the default suite's). Built a
// second time with OPBENCH_TEST_EXTRA_SLOW_BUILD (libopbench_test_extra_slow.so): a changed build
// of the library for `opbench ab --base-library --new-library`, whose fraction is
// OPBENCH_TEST_EXTRA_SLOW (default 0.5).
#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdlib>

// The changed build reads its own variable, so one process of each build can be told apart.
#ifdef OPBENCH_TEST_EXTRA_SLOW_BUILD
#define OPBENCH_TEST_EXTRA_VARIABLE "OPBENCH_TEST_EXTRA_SLOW"
#define OPBENCH_TEST_EXTRA_DEFAULT 0.5
#else
#define OPBENCH_TEST_EXTRA_VARIABLE "OPBENCH_TEST_EXTRA"
#define OPBENCH_TEST_EXTRA_DEFAULT 0.0
#endif

namespace {

double extra_fraction() {
  static const double fraction = [] {
    const char* text = std::getenv(OPBENCH_TEST_EXTRA_VARIABLE);
    const double f = text == nullptr ? OPBENCH_TEST_EXTRA_DEFAULT : std::atof(text);
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
