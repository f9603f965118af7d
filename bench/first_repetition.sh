#!/usr/bin/env bash
# A fresh process's first repetitions: `add` of two 1-element tensors on one thread, pinned to
# one CPU, 6 repetitions in one process, case by case (`--processes 1 --no-interleave`, so a
# repetition's index is its place in time), in N fresh processes. Prints every repetition's
# median, marks those over 10% slower than their process's fastest, and counts them by index.
# `-- --process-warmup 0` shows a run without the process warmup.
#
#   bench/first_repetition.sh [N=12] [CPU=1] [-- RUN ARGS...]
# Environment: OPBENCH (default build/src/opbench).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
n=12
cpu=1
[ $# -gt 0 ] && [ "$1" != "--" ] && { n="$1"; shift; }
[ $# -gt 0 ] && [ "$1" != "--" ] && { cpu="$1"; shift; }
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
id='add/self=1,other=1/float32/cpu/t1/forward'
for k in $(seq 1 "$n"); do
  taskset -c "$cpu" "$opbench" run --ops add --shape-class small --threads 1 --case "$id" --no-memory \
    --processes 1 --no-interleave --repetitions 6 "$@" --output "$scratch/add-$k.json" >/dev/null 2>&1
done
python3 - "$scratch" "$n" <<'PY'
import json, sys
scratch, n = sys.argv[1], int(sys.argv[2])
slow_by_index = [0] * 6
print("| process | repetition medians in time order (us; * over 10% slower than the process's fastest) |")
print("|---:|---|")
for k in range(1, n + 1):
    medians = [m * 1e6 for m in json.load(open(f"{scratch}/add-{k}.json"))["cases"][0]["timing"]["repetition_medians"]]
    fastest = min(medians)
    cells = []
    for i, m in enumerate(medians):
        slow = m > 1.1 * fastest
        slow_by_index[i] += slow
        cells.append(f"{m:.3f}{'*' if slow else ''}")
    print(f"| {k} | {' '.join(cells)} |")
print("\nslow repetitions by place in time: " + " ".join(f"{i + 1}:{s}/{n}" for i, s in enumerate(slow_by_index)))
PY
