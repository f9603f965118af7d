#pragma once
// What a run with measuring children does on SIGINT, SIGTERM and SIGHUP (docs/hostile-input.md):
// the signal is passed on to the child that is measuring, which dies keeping its journal; the run
// starts no other child, keeps what the children measured in its own journal, removes its temp
// folder, and throws Interrupted, which the CLI turns into dying of that same signal. However the
// parent ends (SIGKILL included), its children get SIGTERM (PR_SET_PDEATHSIG, child_runs.cpp).

#include <string>

#include "opbench/core/error.hpp"

namespace opbench::run {

// The run was stopped by `signal`; what it measured is in `journal`.
class Interrupted : public Error {
public:
  Interrupted(int signal, const std::string& journal);
  int signal() const { return m_signal; }

private:
  int m_signal;
};

// While alive, SIGINT, SIGTERM and SIGHUP are caught: remembered, and passed on to the children
// set_current_child() registered. Not nestable; one at a time per process.
class InterruptGuard {
public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// The signal caught since the guard was installed; 0 when none.
int interrupted();

// Registers `pid` as a child to pass a caught signal on to (0: none), in `slot`: children that
// run at the same time (ab's duet) take one slot each, 0 to k_child_slots - 1. A signal caught
// before the registration is passed on at once.
inline constexpr int k_child_slots = 4;
void set_current_child(int pid, int slot = 0);

// Restores the default action of `signal` and raises it, so that this process's parent sees it
// die of that signal (a shell prints nothing and returns 128 + signal); exits 128 + signal should
// the signal not end it.
[[noreturn]] void die_of(int signal);

} // namespace opbench::run
