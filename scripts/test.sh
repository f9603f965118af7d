#!/usr/bin/env bash
# The test command: set-up, build, then every unit and end-to-end test through CTest, then a
# 30 s smoke of each libFuzzer harness on its seed corpus (bench/fuzz.sh; 10 minutes each is the
# bar for a release, run by hand).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)")
bench/fuzz.sh "${OPBENCH_FUZZ_SECONDS:-30}"
