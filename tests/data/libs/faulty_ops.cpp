// An operator library that misbehaves the ways users' kernels do, beside one that behaves: the
// test and fault-probe library of containment (run/processes.hpp) and of checked variants
// (results::OutputCheck). Every operator is a row softmax `faulty::softmax_*(Tensor self) ->
// Tensor` over the last dimension, as ATen's `softmax(self, -1)`:
//   right       correct;
//   wrong       off by a factor (a wrong normalisation);
//   throws      throws a c10::Error;
//   segv_large  segfaults on inputs of more than 4096 elements, correct below;
//   abort_large aborts on inputs of more than 4096 elements, correct below;
//   exit_large  calls exit(0) on inputs of more than 4096 elements, correct below;
//   hang_large  never returns on inputs of more than 4096 elements, correct below;
//   drifts      correct for its first 20 calls in a process, then wrong;
//   by_address  caches its output by the input's address (wrong once the values change);
//   undefined   returns an undefined tensor.
// OPBENCH_FAULTY_INIT (read as the library loads): "exit0" calls exit(0), "_exit3" calls _exit(3).
#include <ATen/ATen.h>
#include <torch/library.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>
#include <unistd.h>

namespace {

constexpr int64_t k_large = 4096;

at::Tensor right(const at::Tensor& self) {
  return at::softmax(self, -1);
}

at::Tensor wrong(const at::Tensor& self) {
  return at::softmax(self, -1) * 1.5;
}

at::Tensor throws(const at::Tensor&) {
  TORCH_CHECK(false, "faulty::softmax_throws: this kernel always fails");
}

at::Tensor segv_large(const at::Tensor& self) {
  if (self.numel() > k_large)
    std::raise(SIGSEGV);
  return right(self);
}

at::Tensor abort_large(const at::Tensor& self) {
  if (self.numel() > k_large)
    std::abort();
  return right(self);
}

at::Tensor exit_large(const at::Tensor& self) {
  if (self.numel() > k_large)
    std::exit(0);
  return right(self);
}

at::Tensor hang_large(const at::Tensor& self) {
  if (self.numel() > k_large) {
    for (;;)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return right(self);
}

at::Tensor drifts(const at::Tensor& self) {
  static int64_t calls = 0;
  return ++calls > 20 ? wrong(self) : right(self);
}

at::Tensor by_address(const at::Tensor& self) {
  static std::map<const void*, at::Tensor> cache;
  const auto it = cache.find(self.data_ptr());
  if (it != cache.end())
    return it->second;
  at::Tensor out = right(self);
  cache.emplace(self.data_ptr(), out);
  return out;
}

at::Tensor undefined(const at::Tensor&) {
  return at::Tensor();
}

struct Init {
  Init() {
    const char* what = std::getenv("OPBENCH_FAULTY_INIT");
    if (what == nullptr)
      return;
    if (std::strcmp(what, "exit0") == 0)
      std::exit(0);
    if (std::strcmp(what, "_exit3") == 0)
      ::_exit(3);
  }
} k_init;

} // namespace

TORCH_LIBRARY(faulty, m) {
  m.def("softmax_right(Tensor self) -> Tensor");
  m.def("softmax_wrong(Tensor self) -> Tensor");
  m.def("softmax_throws(Tensor self) -> Tensor");
  m.def("softmax_segv_large(Tensor self) -> Tensor");
  m.def("softmax_abort_large(Tensor self) -> Tensor");
  m.def("softmax_exit_large(Tensor self) -> Tensor");
  m.def("softmax_hang_large(Tensor self) -> Tensor");
  m.def("softmax_drifts(Tensor self) -> Tensor");
  m.def("softmax_by_address(Tensor self) -> Tensor");
  m.def("softmax_undefined(Tensor self) -> Tensor");
}

TORCH_LIBRARY_IMPL(faulty, CompositeExplicitAutograd, m) {
  m.impl("softmax_right", &right);
  m.impl("softmax_wrong", &wrong);
  m.impl("softmax_throws", &throws);
  m.impl("softmax_segv_large", &segv_large);
  m.impl("softmax_abort_large", &abort_large);
  m.impl("softmax_exit_large", &exit_large);
  m.impl("softmax_hang_large", &hang_large);
  m.impl("softmax_drifts", &drifts);
  m.impl("softmax_by_address", &by_address);
  m.impl("softmax_undefined", &undefined);
}
