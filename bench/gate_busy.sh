#!/usr/bin/env bash
# The nightly gate on a real slow-down (issue #12's coarse test): five quiet nights of a small
# suite, pinned to one CPU with one thread, build a history; then a night, and its confirmation,
# run beside a busy loop pinned to the same CPU, which takes about half of that CPU. Every case
# should come out confirmed `slower`, and a last quiet night nothing at all.
#
#   bench/gate_busy.sh [CPU=1] [RUN ARGS...]     (default suite: --ops add,mul,relu,softmax,mm,sum
#                                                 --shape-class small,common)
# Environment: OPBENCH (default build/src/opbench). Prints the gate's counts for both nights.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
cpu="${1:-1}"
shift || true
[ $# -gt 0 ] || set -- --ops add,mul,relu,softmax,mm,sum --shape-class small,common
dir="$(mktemp -d)"
trap 'kill "${busy:-}" 2>/dev/null || true; rm -rf "$dir"' EXIT
export OPBENCH="$opbench" OPBENCH_NIGHTLY_DIR="$dir"
night() { taskset -c "$cpu" "$here/scripts/nightly.sh" "$@" --threads 1 >/dev/null 2>&1; }
for n in 1 2 3 4 5; do night "$@"; sleep 1; done
taskset -c "$cpu" sh -c 'while :; do :; done' &
busy=$!
code=0
night "$@" || code=$?
kill "$busy"
busy=""
echo "busy night: exit $code; $(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['counts']; print(', '.join(f'{k} {v}' for k,v in c.items()))" "$(ls -1 "$dir"/*.gate.json | tail -n 1)")"
sleep 1
code=0
night "$@" || code=$?
echo "quiet night after it: exit $code; $(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['counts']; print(', '.join(f'{k} {v}' for k,v in c.items()))" "$(ls -1 "$dir"/*.gate.json | tail -n 1)")"
