#!/usr/bin/env bash
# What CI runs (.ci/run, on a clean clone with CI=true): the test command (scripts/test.sh: set-up,
# build, every test through CTest); then the measurement programs no test runs (bench/, left out
# of the test command's build: built here so that every line of them, the CUDA ones too, compiles); then
# a 30 s smoke of each libFuzzer harness on its seed corpus (bench/fuzz.sh; 10 minutes each is the bar for a release, run by hand); then the fault probes
# (bench/faults.sh: full disks, signals, colliding runs, hostile values); then the whole suite
# again against a second LibTorch, the PyPI wheel torch==2.11.0, the GPU machine's
# (scripts/test-second-libtorch.sh; OPBENCH_SECOND_TORCH=VERSION picks another, =off leaves it
# out outside CI).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/test.sh
cmake --build build --target bench_programs -j"$(nproc)"
bench/fuzz.sh "${OPBENCH_FUZZ_SECONDS:-30}"
bench/faults.sh
if [ "${OPBENCH_SECOND_TORCH:-}" = "off" ] && [ "${CI:-}" != "true" ]; then
  echo "ci.sh: the second LibTorch left out (OPBENCH_SECOND_TORCH=off)"
else
  ./scripts/test-second-libtorch.sh
fi
