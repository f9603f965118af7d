// Which build of extra_work.cpp's library this is (extra_build.cpp, compiled once a build).
#pragma once

// The environment variable that holds the build's extra fraction: OPBENCH_TEST_EXTRA, or
// OPBENCH_TEST_EXTRA_SLOW for the changed build, so that one process of each can be told apart.
extern const char* const opbench_test_extra_variable;
// The fraction when that variable is unset: 0 (no extra work), 0.5 for the changed build.
extern const double opbench_test_extra_default;
