#!/usr/bin/env bash
# The nightly gate on a real slow-down (issue #12's coarse test): five quiet nights of a small
# suite, pinned to one CPU with one thread, build a history (scripts/nightly.sh, which keeps the
# binary of each good night as the next night's previous build); then a slow night and its
# confirmation; then a quiet night again, which should raise nothing at all.
#
#   bench/gate_busy.sh [CPU=1] [RUN ARGS...]     (default suite: --ops add,mul,relu,softmax,mm,sum
#                                                 --shape-class small,common)
#
# What makes the slow night slow (OPBENCH_SLOW):
#   busy    (default) a busy loop pinned to the same CPU takes about half of it, for tonight's
#           build and the previous one alike. opbench drops the blocks a neighbour preempted and
#           measures a repetition again when the canary says the machine is slow, so little of
#           this reaches the times, and the A/B confirmation sees both builds slowed alike: the
#           gate should stay quiet (a slow machine is not a slow build).
#   scalar  tonight's build is slower: a wrapper runs opbench with ATEN_CPU_CAPABILITY=default,
#           so ATen's kernels take their non-vectorised code, while the previous build (the last
#           good night's binary) is left as it is. Every case whose kernel ATen vectorises should
#           come out confirmed `slower`, A/B against the previous build; mm goes to BLAS, which
#           does not read that variable, and the smallest cases are call overhead.
# Environment: OPBENCH (default build/src/opbench). Prints the gate's counts for both nights and
# the slow night's case verdicts.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
slow="${OPBENCH_SLOW:-busy}"
case "$slow" in busy|scalar) ;; *) echo "gate_busy.sh: OPBENCH_SLOW is busy or scalar, not '$slow'" >&2; exit 2 ;; esac
cpu="${1:-1}"
shift || true
[ $# -gt 0 ] || set -- --ops add,mul,relu,softmax,mm,sum --shape-class small,common
dir="$(mktemp -d)"
trap 'kill "${busy:-}" 2>/dev/null || true; rm -rf "$dir"' EXIT
export OPBENCH_NIGHTLY_DIR="$dir"
night() { taskset -c "$cpu" "$here/scripts/nightly.sh" "$@" --threads 1 >>"$dir/nights.log" 2>&1; }
counts() {
  python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['counts']; print(', '.join(f'{k} {v}' for k,v in c.items()))" \
    "$(ls -1 "$dir"/*.gate.json | tail -n 1)"
}
export OPBENCH="$opbench"
for n in 1 2 3 4 5; do night "$@"; sleep 1; done
code=0
if [ "$slow" = busy ]; then
  taskset -c "$cpu" sh -c 'while :; do :; done' &
  busy=$!
  night "$@" || code=$?
  kill "$busy"
  busy=""
else
  printf '#!/bin/sh\nATEN_CPU_CAPABILITY=default exec "%s" "$@"\n' "$opbench" >"$dir/opbench-scalar"
  chmod +x "$dir/opbench-scalar"
  OPBENCH="$dir/opbench-scalar" night "$@" || code=$?
fi
echo "$slow night: exit $code; $(counts)"
python3 -c "
import json, sys
for c in json.load(open(sys.argv[1]))['cases']:
    look = '' if c['look_ratio'] is None else ', both looks x%.2f' % c['look_ratio']
    conf = '' if c['confirm_ratio'] is None else ', A/B x%.2f' % c['confirm_ratio']
    mde = '' if c['mde'] is None else ', MDE %.0f%%%s' % (c['mde'] * 100, ' (blind)' if c['blind'] else '')
    print('  %-8s x%.2f%s%s%s  %s' % (c['verdict'], c['ratio'] or 0, look, conf, mde, c['case_id']))
" "$(ls -1 "$dir"/*.gate.json | tail -n 1)"
sleep 1
code=0
night "$@" || code=$?
echo "quiet night after it: exit $code; $(counts)"
