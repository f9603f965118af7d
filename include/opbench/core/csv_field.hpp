#pragma once
// One CSV field, quoted (RFC 4180, by libcsv) only when it holds a comma, quote or line break.

#include <string>

namespace opbench::core {
std::string csv_field(const std::string& text);
}
