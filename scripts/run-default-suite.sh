#!/usr/bin/env bash
# The main job: set-up, build, then `opbench run` on the default suite. Results go to
# results/run-<UTC date>.json (journal beside it while running); extra arguments go to `run`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
exec ./build/src/opbench run "$@"
