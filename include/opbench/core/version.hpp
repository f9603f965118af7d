#pragma once
// opbench's own version, set by CMake from project(VERSION).

namespace opbench {
const char* version();
}
