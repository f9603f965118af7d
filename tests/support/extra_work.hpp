#pragma once
// tests/data/libs/extra_work.cpp's operator does more for the processes started while an
// ExtraWork lives: the library reads OPBENCH_TEST_EXTRA (a fraction of its elements done again,
// in one kept buffer) when it is loaded. A changed build without a rebuild.
#include <cstdlib>

namespace opbench::testing {

struct ExtraWork {
  explicit ExtraWork(const char* fraction) { ::setenv("OPBENCH_TEST_EXTRA", fraction, 1); }
  ~ExtraWork() { ::unsetenv("OPBENCH_TEST_EXTRA"); }
  ExtraWork(const ExtraWork&) = delete;
  ExtraWork& operator=(const ExtraWork&) = delete;
};

} // namespace opbench::testing
