#pragma once
// Logging for code that includes LibTorch. LibTorch ships its own, newer fmt headers in its
// include directory, which shadow the system fmt that spdlog is built against; a translation
// unit that includes LibTorch therefore never includes fmt or spdlog, and logs through these.

#include <string>

namespace opbench::core {

void log_debug(const std::string& message);
void log_info(const std::string& message);
void log_warn(const std::string& message);

} // namespace opbench::core
