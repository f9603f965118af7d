#!/usr/bin/env bash
# For people with a CUDA GPU: builds opbench (scripts/build.sh) and runs bench_gpu_check, which
# checks (a) a large device copy timed with CUDA events (bandwidth printed), (b) CUDA-event against
# host clock + synchronize timing on large operators (agree within 5%), (c) CUDA-graph replays
# against plain launches on tiny operators (graph faster), and prints a verdict.
#   bench/gpu_check.sh [cuda:N]
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
exec ./build/bench/bench_gpu_check "${1:-cuda:0}"
