#!/usr/bin/env bash
# The test command: set-up, build, then every unit and end-to-end test through CTest, against
# the default LibTorch (the PyPI wheel scripts/setup.sh installs). CI runs scripts/ci.sh, which
# is this, then the libFuzzer smoke and the whole suite again against a second LibTorch.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
./scripts/build.sh
built=$SECONDS
(cd build && ctest --output-on-failure -j"$(nproc)")
echo "test.sh: set-up and build $((built - start)) s, CTest $((SECONDS - built)) s, in all $((SECONDS - start)) s"
