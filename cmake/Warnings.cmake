# opbench_warnings: an interface target carrying the project's warning flags.
add_library(opbench_warnings INTERFACE)
target_compile_options(opbench_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Wunused -Woverloaded-virtual -Wdouble-promotion -Wformat=2)
if(OPBENCH_WARNINGS_AS_ERRORS)
  target_compile_options(opbench_warnings INTERFACE -Werror)
endif()
