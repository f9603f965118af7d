#include "opbench/core/units.hpp"

#include <fmt/format.h>

#include <cmath>

namespace opbench::core {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds))
    return "-";
  const double a = std::fabs(seconds);
  if (a < 1e-6)
    return fmt::format("{:.1f} ns", seconds * 1e9);
  if (a < 1e-3)
    return fmt::format("{:.2f} us", seconds * 1e6);
  if (a < 1.0)
    return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.3f} s", seconds);
}

std::string format_bytes(std::int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (std::llabs(bytes) < 1024)
    return fmt::format("{} B", bytes);
  if (std::llabs(bytes) < 1024LL * 1024)
    return fmt::format("{:.2f} KiB", b / 1024.0);
  if (std::llabs(bytes) < 1024LL * 1024 * 1024)
    return fmt::format("{:.2f} MiB", b / (1024.0 * 1024.0));
  return fmt::format("{:.2f} GiB", b / (1024.0 * 1024.0 * 1024.0));
}

} // namespace opbench::core
