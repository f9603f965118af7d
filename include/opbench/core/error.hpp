#pragma once
// Errors that opbench reports to the user, and the exit codes they map to.

#include <stdexcept>
#include <string>

namespace opbench {

// Exit codes of the binary: 0 ok, 1 some case failed (or regressed), 2 usage or config error.
inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_case_failed = 1;
inline constexpr int k_exit_usage = 2;
// `compare BASE NEW` only: no case could be judged (every one `unknown`), so exit 0 would claim
// a comparison that did not happen.
inline constexpr int k_exit_nothing_judged = 3;
// `compare` and the gate: no case is slower, but some case's call takes more memory (with
// `--fail-on` memory, the default).
inline constexpr int k_exit_more_memory = 4;

// Base of every error opbench reports; the message already carries its context.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A config file, a config row or an argument is wrong (`file:row: what is wrong`).
class ConfigError : public Error {
public:
  using Error::Error;
};

// The requested device cannot be used (no CUDA compiled in, no device visible, ...).
class DeviceError : public Error {
public:
  using Error::Error;
};

// A command-line value is wrong in a way the parser could not see.
class UsageError : public Error {
public:
  using Error::Error;
};

// A stored result file cannot be read or does not fit.
class ResultsError : public Error {
public:
  using Error::Error;
};

} // namespace opbench
