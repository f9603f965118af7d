# Third-party libraries that are not LibTorch; all come from Debian packages
# (libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev libgtest-dev libcsv-dev libsqlite3-dev).
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json 3.9 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)
# The results history (opbench history, compare --history).
find_package(SQLite3 REQUIRED)

# libcsv (RFC 4180 reader/writer: quoted fields, embedded commas and quotes) has no CMake package.
find_path(CSV_INCLUDE_DIR csv.h REQUIRED)
find_library(CSV_LIBRARY NAMES csv REQUIRED)
add_library(opbench::csv UNKNOWN IMPORTED)
set_target_properties(opbench::csv PROPERTIES
  IMPORTED_LOCATION "${CSV_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${CSV_INCLUDE_DIR}")

if(OPBENCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# Precompiled headers (OPBENCH_PCH, on by default): a target whose units mostly include the same
# heavy headers compiles them once. opbench_precompile(TARGET HEADER...) for third-party headers
# (CLI11, nlohmann_json, GoogleTest: a unit of the CLI spends most of its 8 s in CLI11);
# cmake/Torch.cmake's opbench_precompile_libtorch for LibTorch's. docs/architecture.md has the
# build times.
option(OPBENCH_PCH "Precompile the heavy headers of each target that includes them" ON)
function(opbench_precompile target)
  if(OPBENCH_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()

# Code that parses and tests, and is never timed (the CLI, the test executables), compiles at -O1
# however the build is configured: the measured code (the library, the samples, the operator
# libraries the tests time) keeps the build type's -O3. At -O1 such a unit compiles in about 60%
# of the time (build-log.md); what it calls runs in the -O3 library. With OPBENCH_UNITY (on by
# default) its sources also compile eight to a unit: each unit pays the precompiled header and
# the third-party templates once for eight files. Names at namespace scope in such files must
# then differ between files (shared test helpers live in tests/support/); -DOPBENCH_UNITY=OFF
# compiles each file alone, which shows a file's missing include.
# opbench_base, LibTorch-free and holding no timed code, compiles so too (src/CMakeLists.txt).
option(OPBENCH_UNITY "Compile the untimed targets' sources eight to a unit" ON)
function(opbench_untimed_code target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -O1)
  endif()
  if(OPBENCH_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()
