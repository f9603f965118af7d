// The one difference between extra_work.cpp's two builds (its top): with
// OPBENCH_TEST_EXTRA_SLOW_BUILD, the changed one. No LibTorch here, so the second build costs
// this file's compile, not the operator's.
#include "extra_build.hpp"

#ifdef OPBENCH_TEST_EXTRA_SLOW_BUILD
const char* const opbench_test_extra_variable = "OPBENCH_TEST_EXTRA_SLOW";
const double opbench_test_extra_default = 0.5;
#else
const char* const opbench_test_extra_variable = "OPBENCH_TEST_EXTRA";
const double opbench_test_extra_default = 0.0;
#endif
