#pragma once
// How many ATen operator calls one invocation makes: the long-tail signal ("giou_loss: 38 ATen
// calls, 41 us" next to "mm: 1 call"). Counted in an untimed pass with a thread-local
// RecordFunction callback; only top-level calls count (those an operator makes inside itself
// are its own business), as in `opbench extract`.

#include <cstdint>
#include <functional>

namespace opbench::exec {

std::int64_t count_aten_calls(const std::function<void()>& call);

}  // namespace opbench::exec
