#include "opbench/core/log.hpp"

#include <spdlog/spdlog.h>

namespace opbench::core {

void log_debug(const std::string& message) {
  spdlog::debug("{}", message);
}
void log_info(const std::string& message) {
  spdlog::info("{}", message);
}
void log_warn(const std::string& message) {
  spdlog::warn("{}", message);
}

} // namespace opbench::core
