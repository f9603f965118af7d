#include "opbench/measure/holding.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "opbench/core/error.hpp"
#include "opbench/core/files.hpp"
#include "opbench/core/json.hpp"

namespace opbench::measure {
namespace {

struct HoldState {
  int fd = -1;
  bool holding = false;
  Held held;
};

HoldState& state() {
  static HoldState k_state;
  return k_state;
}

void write_record() {
  HoldState& s = state();
  ++s.held.serial;
  const Json record = {{"case", s.holding ? Json(s.held.case_id) : Json(nullptr)},
                       {"repetition", s.held.repetition},
                       {"phase", core::name_of(s.held.phase)},
                       {"serial", s.held.serial}};
  // dump() escapes control characters (the id stays on one line); invalid UTF-8 is replaced.
  const std::string line = record.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  // One system call: the parent sees this record whole or the one before it.
  (void)!::pwrite(s.fd, line.data(), line.size(), 0);
}

} // namespace

std::string describe(Phase phase) {
  switch (phase) {
  case Phase::process_warmup:
    return "the process's warmup repetition";
  case Phase::inputs:
    return "making its inputs";
  case Phase::compile:
    return "its stage's compile";
  case Phase::check:
    return "the check of its outputs";
  case Phase::record:
    return "the call recording its ATen calls";
  case Phase::warmup:
    return "warmup";
  case Phase::timed:
    return "the timed blocks";
  case Phase::memory_probe:
    return "the memory probe";
  case Phase::trace:
    return "the trace";
  }
  return core::name_of(phase);
}

void open_hold_file(const std::string& path) {
  HoldState& s = state();
  if (s.fd >= 0)
    ::close(s.fd);
  s.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (s.fd < 0)
    throw Error(core::os_error(path, "cannot open the hold file", errno));
  s.holding = false;
}

void hold(const std::string& case_id, int repetition, Phase phase) {
  HoldState& s = state();
  if (s.fd < 0)
    return;
  s.holding = true;
  s.held.case_id = case_id;
  s.held.repetition = repetition;
  s.held.phase = phase;
  write_record();
}

void hold_phase(Phase phase) {
  HoldState& s = state();
  if (s.fd < 0 || !s.holding || s.held.phase == phase)
    return;
  s.held.phase = phase;
  write_record();
}

void release_hold() {
  HoldState& s = state();
  if (s.fd < 0 || !s.holding)
    return;
  s.holding = false;
  write_record();
}

std::optional<Held> read_hold_file(const std::string& path) {
  std::optional<Held> held = read_hold_record(path);
  if (held && held->released)
    return std::nullopt;
  return held;
}

std::optional<Held> read_hold_record(const std::string& path) {
  std::string text;
  try {
    text = core::read_file(path);
  } catch (const Error&) {
    return std::nullopt;
  }
  const auto end = text.find('\n');
  if (end == std::string::npos)
    return std::nullopt;
  const std::optional<Json> record = core::parse_json(std::string_view(text).substr(0, end));
  if (!record || !record->is_object())
    return std::nullopt;
  Held held;
  try {
    held.released = record->at("case").is_null();
    if (!held.released)
      held.case_id = record->at("case").get<std::string>();
    held.repetition = record->at("repetition").get<int>();
    held.serial = record->at("serial").get<std::uint64_t>();
    if (!core::parse_name(record->at("phase").get<std::string>(), held.phase))
      return std::nullopt;
  } catch (const Json::exception&) {
    return std::nullopt;
  }
  return held;
}

} // namespace opbench::measure
