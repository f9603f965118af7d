#pragma once
// Human units for printing: seconds and bytes are stored, converted only here.

#include <cstdint>
#include <string>

namespace opbench::core {

// `412.3 ns`, `12.34 us`, `1.234 ms`, `2.000 s`; `-` for NaN.
std::string format_duration(double seconds);

// `512 B`, `4.00 KiB`, `4.00 MiB`, `1.50 GiB`.
std::string format_bytes(std::int64_t bytes);

} // namespace opbench::core
