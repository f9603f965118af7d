#include "opbench/core/version.hpp"

namespace opbench {
const char* version() {
  return OPBENCH_VERSION;
}
} // namespace opbench
