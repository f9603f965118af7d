#!/usr/bin/env bash
# Set-up (scripts/setup.sh), then configures and builds opbench in ./build (Release).
# CI=true turns warnings into errors.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

prefix="${OPBENCH_TORCH_PREFIX:-}"
if [ -z "$prefix" ]; then
  # Where the wheel keeps its CMake package, found without importing torch.
  prefix="$(.venv/bin/python -c 'import importlib.util, os; print(os.path.join(os.path.dirname(importlib.util.find_spec("torch").origin), "share", "cmake"))')"
fi
# In CI: warnings are errors, and the build fails unless the CUDA code is compiled (LibTorch
# from the PyPI wheel has CUDA, so every CUDA line is compiled against ATen's CUDA headers).
werror=OFF
require_cuda=OFF
if [ "${CI:-}" = "true" ]; then werror=ON; require_cuda=ON; fi
# bench's measurement programs are run by hand, never by a test: left out of this build
# (`cmake --build build --target bench_programs` builds them; scripts/ci.sh does).
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DOPBENCH_WARNINGS_AS_ERRORS="$werror" -DOPBENCH_REQUIRE_CUDA="$require_cuda" \
  -DOPBENCH_BENCH_IN_ALL=OFF >build-configure.log 2>&1 || { cat build-configure.log; exit 1; }
cmake --build build -j"$(nproc)"
