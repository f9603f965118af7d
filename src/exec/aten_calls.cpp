#include "opbench/exec/aten_calls.hpp"

#include <ATen/record_function.h>

#include <cstring>

namespace opbench::exec {
namespace {

thread_local std::int64_t t_calls = 0;
thread_local int t_depth = 0;

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  if (t_depth++ == 0 && std::strncmp(fn.name(), "aten::", 6) == 0) ++t_calls;
  return nullptr;
}

void on_end(const at::RecordFunction& /*fn*/, at::ObserverContext* /*context*/) { --t_depth; }

}  // namespace

std::int64_t count_aten_calls(const std::function<void()>& call) {
  at::RecordFunctionGuard enabled(true);
  t_calls = 0;
  t_depth = 0;
  const auto handle = at::addThreadLocalCallback(
      at::RecordFunctionCallback(on_start, on_end).scopes({at::RecordScope::FUNCTION}));
  try {
    call();
  } catch (...) {
    at::removeCallback(handle);
    throw;
  }
  at::removeCallback(handle);
  return t_calls;
}

}  // namespace opbench::exec
