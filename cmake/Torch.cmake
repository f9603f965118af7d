# LibTorch: found through find_package(Torch), so Torch_DIR or CMAKE_PREFIX_PATH can point at any
# LibTorch (the PyPI wheel's torch/share/cmake, the pytorch.org zip, Debian's libtorch-dev).
find_package(Torch REQUIRED)

# opbench::torch: LibTorch with its compile flags, as one target.
# libstdc++ is linked BEFORE LibTorch, on purpose: PyPI wheels export copies of libstdc++
# symbols (std::filesystem among them, which crash with some wheels: pytorch/pytorch#133437), and
# the dynamic linker binds each symbol to the first library in the program's needed list that has
# it. With libstdc++ first, the standard library opbench calls is libstdc++'s own. Checked by the
# test LibTorchSymbols.StdResolvesToLibstdcxx; see also include/opbench/core/files.hpp.
add_library(opbench_torch_deps INTERFACE)
target_link_libraries(opbench_torch_deps INTERFACE
  "-Wl,--push-state,--no-as-needed" stdc++ "-Wl,--pop-state" ${TORCH_LIBRARIES})
if(TORCH_CXX_FLAGS)
  separate_arguments(_opbench_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  target_compile_options(opbench_torch_deps INTERFACE ${_opbench_torch_flags})
endif()

# The PyPI wheel keeps CUDA's libraries in site-packages/nvidia/*/lib and finds them at run time
# through its RPATH ($ORIGIN/../../nvidia/...). The linker does not expand $ORIGIN, so without
# -rpath-link it resolves libtorch_cuda.so's needs against whatever CUDA is installed system-wide
# (here an older NCCL), and the link fails. Point it at the wheel's own copies.
get_filename_component(_opbench_torch_libdir "${TORCH_LIBRARY}" DIRECTORY)
file(GLOB _opbench_nvidia_libdirs LIST_DIRECTORIES true "${_opbench_torch_libdir}/../../nvidia/*/lib")
foreach(_dir IN LISTS _opbench_nvidia_libdirs)
  target_link_options(opbench_torch_deps INTERFACE "LINKER:-rpath-link,${_dir}")
endforeach()
set_property(TARGET opbench_torch_deps PROPERTY INTERFACE_LINK_DIRECTORIES "")
add_library(opbench::torch ALIAS opbench_torch_deps)

# Whether this LibTorch has CUDA compiled in; opbench's CUDA code (event timer, graphs, device
# statistics) is built exactly when it has. OPBENCH_REQUIRE_CUDA (on in CI) makes a LibTorch
# without CUDA an error, so the CUDA code can never be left out of CI's build unnoticed; a unit
# test also checks at run time that it is compiled in whenever LibTorch has CUDA kernels.
option(OPBENCH_REQUIRE_CUDA "Fail unless LibTorch has CUDA and opbench's CUDA code is built" OFF)
if(TARGET torch_cuda OR TARGET c10_cuda OR CAFFE2_USE_CUDA)
  set(OPBENCH_TORCH_HAS_CUDA ON)
else()
  set(OPBENCH_TORCH_HAS_CUDA OFF)
endif()
if(OPBENCH_REQUIRE_CUDA AND NOT OPBENCH_TORCH_HAS_CUDA)
  message(FATAL_ERROR "OPBENCH_REQUIRE_CUDA is on, but the LibTorch found has no CUDA")
endif()
message(STATUS "opbench: LibTorch ${Torch_VERSION} at ${_opbench_torch_libdir}, CUDA: ${OPBENCH_TORCH_HAS_CUDA}")

# LibTorch's headers are most of the compile time of a translation unit that includes them (the
# engine, the samples and their tests: some 60 units); each such target precompiles <ATen/ATen.h>
# once instead (OPBENCH_PCH, on by default; docs/architecture.md has the build times). Only for
# targets whose every unit may see LibTorch's include directory: it carries its own fmt, which a
# unit that includes the system fmt must never see.
# `REUSE_FROM other` takes another target's precompiled header: GCC uses it where the options that
# shape it match (the same LibTorch, defines and -fPIC; another -O level is accepted), and
# -Winvalid-pch (CMake's default) warns when it does not.
function(opbench_precompile_libtorch target)
  cmake_parse_arguments(ARG "" "REUSE_FROM" "" ${ARGN})
  if(ARG_REUSE_FROM AND OPBENCH_PCH)
    target_precompile_headers(${target} REUSE_FROM ${ARG_REUSE_FROM})
  else()
    opbench_precompile(${target} <ATen/ATen.h>)
  endif()
endfunction()

# NVML's header (nvml.h), for reading a CUDA device's clocks, throttle reasons, temperature and
# power (src/machine/device_state.cpp). The driver's library is loaded at run time (dlopen), so no
# build links it; only the header's types are needed. Looked for in the CUDA toolkit and in the
# nvidia-nvml-dev wheel that scripts/setup.sh puts beside the torch wheel. Without it (where
# neither is), opbench still builds and says in each result that it could not read the device.
set(_opbench_nvml_hints /usr/local/cuda/include /usr/local/cuda/targets/x86_64-linux/include)
if(CUDAToolkit_INCLUDE_DIRS)
  list(APPEND _opbench_nvml_hints ${CUDAToolkit_INCLUDE_DIRS})
endif()
file(GLOB _opbench_nvml_wheels LIST_DIRECTORIES true
  "${_opbench_torch_libdir}/../../nvidia/cu*/include" "${_opbench_torch_libdir}/../../nvidia/nvml/include"
  "${PROJECT_SOURCE_DIR}/.venv/lib/python3*/site-packages/nvidia/cu*/include")
list(APPEND _opbench_nvml_hints ${_opbench_nvml_wheels})
find_path(OPBENCH_NVML_INCLUDE_DIR nvml.h HINTS ${_opbench_nvml_hints} NO_DEFAULT_PATH)
if(OPBENCH_NVML_INCLUDE_DIR)
  message(STATUS "opbench: NVML's header in ${OPBENCH_NVML_INCLUDE_DIR}")
else()
  message(STATUS "opbench: no nvml.h found: results will say the device's state was not read")
endif()
