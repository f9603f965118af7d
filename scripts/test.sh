#!/usr/bin/env bash
# The test command: set-up, build, then every unit and end-to-end test through CTest; a 30 s
# smoke of each libFuzzer harness on its seed corpus (bench/fuzz.sh; 10 minutes each is the bar
# for a release, run by hand); then the whole suite again against a second LibTorch, the PyPI
# wheel torch==2.11.0 (scripts/test-second-libtorch.sh; OPBENCH_SECOND_TORCH=off leaves it out
# outside CI, another version there picks that one).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)")
bench/fuzz.sh "${OPBENCH_FUZZ_SECONDS:-30}"
if [ "${OPBENCH_SECOND_TORCH:-}" = "off" ] && [ "${CI:-}" != "true" ]; then
  echo "test.sh: the second LibTorch left out (OPBENCH_SECOND_TORCH=off)"
else
  ./scripts/test-second-libtorch.sh
fi
