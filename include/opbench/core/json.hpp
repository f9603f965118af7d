#pragma once
// The JSON type used everywhere: keys keep their insertion order, so files diff cleanly.

#include <nlohmann/json.hpp>

namespace opbench {
using Json = nlohmann::ordered_json;
}
