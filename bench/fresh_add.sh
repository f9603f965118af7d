#!/usr/bin/env bash
# The smallest case in fresh processes: `add` of two 1-element tensors on one thread, pinned to
# one CPU, measured by `opbench run` (its defaults) and by a plain loop (bench_overhead
# plain-add, after 0.3 s of the same calls, dropped, as opbench's --process-warmup), alternating,
# N processes each. Prints each process's time (opbench: its estimate.time), the spread of each
# column (max/min - 1) and the ratio of opbench's median over processes to the plain loop's.
#
#   bench/fresh_add.sh [N=10] [CPU=1]
# Environment: OPBENCH (default build/src/opbench), BENCH_OVERHEAD (default build/bench/bench_overhead).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
plain="${BENCH_OVERHEAD:-$here/build/bench/bench_overhead}"
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
  ours+=("$(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['cases'][0]; print(c['estimate']['time']*1e6)" "$scratch/add-$k.json")")
  theirs+=("$(taskset -c "$cpu" "$plain" plain-add 0.5 | sed -n 's/.*median \([0-9.]*\) us/\1/p')")
done
python3 - "${ours[*]}" "${theirs[*]}" <<'PY'
import statistics, sys
ours = [float(x) for x in sys.argv[1].split()]
plain = [float(x) for x in sys.argv[2].split()]
print("| process | opbench time (us) | plain loop median (us) |")
print("|---:|---:|---:|")
for i, (a, b) in enumerate(zip(ours, plain), 1):
    print(f"| {i} | {a:.4f} | {b:.4f} |")
mo, mp = statistics.median(ours), statistics.median(plain)
print(f"\nopbench: median of its times {mo:.4f} us, processes within {min(ours)/mo-1:+.1%} .. {max(ours)/mo-1:+.1%} of it")
print(f"plain:   median of medians {mp:.4f} us, processes within {min(plain)/mp-1:+.1%} .. {max(plain)/mp-1:+.1%} of it")
print(f"opbench / plain: {mo/mp:.4f}")
PY
