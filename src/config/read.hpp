#pragma once
// Internal to the config module: reading a config file's text.

#include <string>

namespace opbench::config {

// The text of `path`; ConfigError naming it (and that a config file was expected) when it cannot
// be read.
std::string read_config_file(const std::string& path);

} // namespace opbench::config
