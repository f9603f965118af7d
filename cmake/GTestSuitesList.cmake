# Run after a test executable is built (cmake/GTestSuites.cmake): lists its GoogleTest suites
# (`EXE --gtest_list_tests`) and writes OUT, the CTest file that adds one test a suite.
# -D EXE=... NAME=... WORKDIR=... OUT=... COSTS="Suite=cost,..." SINGLE="Suite,..."
cmake_minimum_required(VERSION 3.18)
string(REPLACE "," ";" COSTS "${COSTS}")
string(REPLACE "," ";" SINGLE "${SINGLE}")
execute_process(
  COMMAND "${EXE}" --gtest_list_tests
  WORKING_DIRECTORY "${WORKDIR}"
  OUTPUT_VARIABLE listed
  ERROR_VARIABLE listed_errors
  RESULT_VARIABLE code
  TIMEOUT 120)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${EXE} --gtest_list_tests exited ${code}:\n${listed}${listed_errors}")
endif()

foreach(pair IN LISTS COSTS)
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 suite)
  list(GET pair 1 cost)
  set(cost_of_${suite} "${cost}")
endforeach()

# A suite's line has no leading space and ends with '.' (a typed or parameterised one may carry
# a "  # TypeParam = ..." comment); its tests are the indented lines below it.
string(REPLACE "\n" ";" lines "${listed}")
set(suites "")
set(current "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([A-Za-z_][A-Za-z0-9_/]*)\\.")
    set(current "${CMAKE_MATCH_1}")
    list(APPEND suites "${current}")
    set(tests_in_${current} 0)
    set(names_in_${current} "")
  elseif(line MATCHES "^  ([A-Za-z_][A-Za-z0-9_/]*)" AND NOT current STREQUAL "")
    math(EXPR tests_in_${current} "${tests_in_${current}} + 1")
    list(APPEND names_in_${current} "${CMAKE_MATCH_1}")
  endif()
endforeach()
if(suites STREQUAL "")
  message(FATAL_ERROR "${EXE} --gtest_list_tests listed no suite:\n${listed}")
endif()

# A test that skipped (GTEST_SKIP) makes its CTest test skipped: a suite's test is reported
# passed only when every test in it ran and passed. SINGLE suites (those whose tests may skip
# one by one, as the CUDA ones on a CPU machine) keep one CTest test a test, `Suite.Test`.
set(skipped [=[\[  SKIPPED \]]=])
set(text "# Written by cmake/GTestSuitesList.cmake after ${NAME} was built.\n")
foreach(suite IN LISTS suites)
  if(suite IN_LIST SINGLE)
    foreach(test IN LISTS names_in_${suite})
      string(APPEND text
        "add_test([=[${suite}.${test}]=] [=[${EXE}]=] [=[--gtest_filter=${suite}.${test}]=])\n"
        "set_tests_properties([=[${suite}.${test}]=] PROPERTIES WORKING_DIRECTORY "
        "[=[${WORKDIR}]=] COST 5 SKIP_REGULAR_EXPRESSION [=[${skipped}]=])\n")
    endforeach()
    continue()
  endif()
  if(DEFINED cost_of_${suite})
    set(cost "${cost_of_${suite}}")
  else()
    math(EXPR cost "5 * ${tests_in_${suite}}")
  endif()
  string(APPEND text
    "add_test([=[${NAME}.${suite}]=] [=[${EXE}]=] [=[--gtest_filter=${suite}.*]=])\n"
    "set_tests_properties([=[${NAME}.${suite}]=] PROPERTIES WORKING_DIRECTORY [=[${WORKDIR}]=] "
    "COST ${cost} SKIP_REGULAR_EXPRESSION [=[${skipped}]=])\n")
endforeach()
file(WRITE "${OUT}" "${text}")
