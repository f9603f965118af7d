# opbench_discover_suites(TARGET [COSTS SUITE=COST ...] [SINGLE SUITE ...]): one CTest test per
# GoogleTest suite of TARGET (`TARGET.Suite`, running `TARGET --gtest_filter=Suite.*`), listed
# after each build as gtest_discover_tests lists single tests. For a test executable whose every
# process pays a startup worth more than most of its tests (unit_engine_tests: LibTorch's static
# initialisers, about 0.4 s a process against 0.01-0.1 s a test): one process a suite instead of
# one a test. A suite in which a test skipped (GTEST_SKIP) is reported skipped, never passed;
# SINGLE suites, whose tests may skip one by one (no CUDA device), keep a CTest test a test.
# COSTS orders a fresh clone's first parallel ctest (longest first; default 5 a test of the
# suite); later runs order by CTest's own timings. The whole binary, or one test, runs by hand
# as ever: `unit_engine_tests --gtest_filter=...`.
set(_opbench_suites_script "${CMAKE_CURRENT_LIST_DIR}/GTestSuitesList.cmake")

function(opbench_discover_suites target)
  cmake_parse_arguments(ARG "" "" "COSTS;SINGLE" ${ARGN})
  set(tests_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake")
  # Lists travel comma-separated: a ';' would split the command's argument.
  string(REPLACE ";" "," costs "${ARG_COSTS}")
  string(REPLACE ";" "," single "${ARG_SINGLE}")
  add_custom_command(
    TARGET ${target} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" -D "EXE=$<TARGET_FILE:${target}>" -D "NAME=${target}"
            -D "WORKDIR=${CMAKE_CURRENT_BINARY_DIR}" -D "OUT=${tests_file}" -D "COSTS=${costs}"
            -D "SINGLE=${single}"
            -P "${_opbench_suites_script}"
    BYPRODUCTS "${tests_file}"
    VERBATIM)
  file(WRITE "${include_file}"
       "if(EXISTS \"${tests_file}\")\n"
       "  include(\"${tests_file}\")\n"
       "else()\n"
       "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
