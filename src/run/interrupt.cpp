#include "opbench/run/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace opbench::run {
namespace {

volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_children[k_child_slots] = {};

constexpr int k_signals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_previous[3];

extern "C" void on_signal(int signal) {
  g_signal = signal;
  for (int slot = 0; slot < k_child_slots; ++slot) {
    const pid_t child = g_children[slot];
    if (child > 0)
      ::kill(child, signal);
  }
}

} // namespace

Interrupted::Interrupted(int signal, const std::string& journal)
    : Error("interrupted by " + std::string(strsignal(signal)) + ": what was measured is kept in " +
            journal + " (`opbench export --input " + journal + "` reads it)"),
      m_signal(signal) {}

InterruptGuard::InterruptGuard() {
  g_signal = 0;
  for (auto& child : g_children)
    child = 0;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0; // no SA_RESTART: a wait returns EINTR, and the loop looks again
  for (int i = 0; i < 3; ++i)
    sigaction(k_signals[i], &action, &g_previous[i]);
}

InterruptGuard::~InterruptGuard() {
  for (int i = 0; i < 3; ++i)
    sigaction(k_signals[i], &g_previous[i], nullptr);
  for (auto& child : g_children)
    child = 0;
}

int interrupted() {
  return g_signal;
}

void set_current_child(int pid, int slot) {
  if (slot < 0 || slot >= k_child_slots)
    throw Error("set_current_child: slot " + std::to_string(slot) + " out of range");
  g_children[slot] = pid;
  const int signal = g_signal;
  if (pid > 0 && signal != 0)
    ::kill(pid, signal);
}

void die_of(int signal) {
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(signal);
  std::_Exit(128 + signal);
}

} // namespace opbench::run
