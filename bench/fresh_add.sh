#!/usr/bin/env bash
# The smallest case in fresh processes: `add` of two 1-element tensors on one thread, pinned to
# one CPU, measured by `opbench run` (its defaults) and by a plain loop (bench_overhead
# plain-add, after 0.3 s of the same calls, dropped, as opbench's --process-warmup; six windows, as
# opbench's six repetitions), alternating, N processes each. Prints each process's times, like with
# like: opbench's median of its repetition medians (estimate.median) beside the plain loop's median
# of its window medians, and opbench's time (estimate.time, the mean of its two fastest
# repetitions: --estimator fastest-third) beside the mean of the plain loop's two fastest windows;
# then the spread of each column (max/min - 1) and the ratio of opbench's median over processes to
# the plain loop's, for each pair of columns.
#
#   bench/fresh_add.sh [N=10] [CPU=1]
# Environment: OPBENCH (default build/src/opbench), BENCH_OVERHEAD (default build/bench/bench_overhead).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
plain="${BENCH_OVERHEAD:-}"
if [ -z "$plain" ]; then # not in the test command's build: built here when missing or out of date
  cmake --build "$here/build" --target bench_overhead >/dev/null
  plain="$here/build/bench/bench_overhead"
fi
n="${1:-10}"
cpu="${2:-1}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
id='add/self=1,other=1/float32/cpu/t1/forward'
ours=()
theirs=()
for k in $(seq 1 "$n"); do
  taskset -c "$cpu" "$opbench" run --ops add --shape-class small --threads 1 --case "$id" --no-memory \
    --output "$scratch/add-$k.json" >/dev/null 2>&1
  ours+=("$(python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['cases'][0]['estimate']; print(e['median']*1e6, e['time']*1e6)" "$scratch/add-$k.json")")
  theirs+=("$(taskset -c "$cpu" "$plain" plain-add 0.5 | sed -n 's/.*median \([0-9.]*\) us, fastest third \([0-9.]*\) us/\1 \2/p')")
done
python3 - "${ours[*]}" "${theirs[*]}" <<'PY'
import statistics, sys
def pairs(text):
    v = [float(x) for x in text.split()]
    return v[0::2], v[1::2]
ours_median, ours_time = pairs(sys.argv[1])
plain_median, plain_third = pairs(sys.argv[2])
print("| process | opbench median (us) | plain median (us) | opbench time (us) | plain fastest third (us) |")
print("|---:|---:|---:|---:|---:|")
for i, row in enumerate(zip(ours_median, plain_median, ours_time, plain_third), 1):
    print(f"| {i} | " + " | ".join(f"{x:.4f}" for x in row) + " |")
def spread(name, values):
    m = statistics.median(values)
    print(f"{name}: median over processes {m:.4f} us, processes within {min(values)/m-1:+.1%} .. {max(values)/m-1:+.1%} of it")
    return m
print()
a, b = spread("opbench median", ours_median), spread("plain median  ", plain_median)
c, d = spread("opbench time  ", ours_time), spread("plain third   ", plain_third)
print(f"\nopbench / plain: {a/b:.4f} (medians), {c/d:.4f} (fastest third: opbench's default estimate)")
PY
