#!/usr/bin/env bash
# The goals of stopping when known and of the interval (issue 62), measured side by side with the
# build before in one script: bench/aa.sh runs the suite RUNS times with each build, alternating
# (so both meet the same hours), then bench/interval_goals.py reads the runs: each run's wall
# clock, the A/A of each build (median / p90 |Δ| of every pair), how often the next run's time
# fell inside a run's interval, the interval's median half-width, the cases wider than ±5% and
# whether each says why, and the two builds' agreement on the cases that were already tight.
#
#   bench/interval_goals.sh --baseline BIN [-n RUNS] [-o DIR] [-- RUN ARGS...]
#
# RUNS defaults to 3, DIR to results/interval-<UTC date>. Environment: OPBENCH (this build).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
runs=3
dir="results/interval-$(date -u +%Y%m%d-%H%M%S)"
baseline=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs="$2"; shift 2 ;;
    -o) dir="$2"; shift 2 ;;
    --baseline) baseline="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "interval_goals.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$baseline" ] || { echo "interval_goals.sh: --baseline BIN (the build before) is needed" >&2; exit 2; }
"$here/bench/aa.sh" -n "$runs" -o "$dir" --baseline "$baseline" -- "$@"
python3 "$here/bench/interval_goals.py" "$dir" | tee "$dir/goals.md"
