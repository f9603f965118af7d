#!/usr/bin/env bash
# A/A reproducibility benchmark: runs the same suite N times, each in a fresh `opbench run`
# process, then compares run 1 with every later run (`opbench compare`) and prints, per pair,
# the spread of the per-case median ratios (median / p90 / worst of |new/base - 1|), compare's
# verdict counts and the cases farthest from 1. Identical code on an identical machine: every
# ratio should be 1, so whatever is printed is opbench's (and the machine's) run-to-run noise.
#
#   bench/aa.sh [-n RUNS] [-o DIR] [--taskset CPUS] [-- RUN ARGS...]
#
# RUN ARGS go to every `opbench run` (default: none, i.e. the default suite). --taskset pins each
# run with `taskset -c CPUS`. Results stay in DIR (default results/aa-<UTC date>): run-K.json,
# compare-1-K.json/.md, table.md. Environment: OPBENCH (default build/src/opbench).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
runs=2
dir="results/aa-$(date -u +%Y%m%d-%H%M%S)"
pin=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs="$2"; shift 2 ;;
    -o) dir="$2"; shift 2 ;;
    --taskset) pin="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "aa.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ "$runs" -ge 2 ] 2>/dev/null || { echo "aa.sh: -n needs at least 2 runs" >&2; exit 2; }
[ -x "$opbench" ] || { echo "aa.sh: no opbench binary at $opbench (scripts/build.sh builds it)" >&2; exit 2; }
mkdir -p "$dir"
launcher=()
[ -n "$pin" ] && launcher=(taskset -c "$pin")

for k in $(seq 1 "$runs"); do
  start=$(date +%s.%N)
  code=0
  "${launcher[@]}" "$opbench" run "$@" --output "$dir/run-$k.json" >/dev/null 2>"$dir/run-$k.log" || code=$?
  end=$(date +%s.%N)
  if [ "$code" -ge 2 ] || [ ! -f "$dir/run-$k.json" ]; then
    echo "aa.sh: run $k failed (exit $code); see $dir/run-$k.log" >&2
    exit 2
  fi
  python3 -c "print('run $k: %.1f s' % ($end - $start))" | tee -a "$dir/times.txt"
done

for k in $(seq 2 "$runs"); do
  "$opbench" compare "$dir/run-1.json" "$dir/run-$k.json" --format json --output "$dir/compare-1-$k.json" || true
  "$opbench" compare "$dir/run-1.json" "$dir/run-$k.json" --format md --output "$dir/compare-1-$k.md" || true
done

python3 - "$dir" "$runs" "${launcher[*]:-}" "$*" <<'EOF' | tee "$dir/table.md"
import json, sys
folder, runs, pin, args = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
print(f"A/A: {runs} runs of `opbench run {args}`" + (f" under `{pin}`" if pin else "") + f" ({folder})\n")
print("| pair | cases | median \\|Δ\\| | p90 \\|Δ\\| | worst | slower | faster | same | unknown |")
print("|---|---:|---:|---:|---|---:|---:|---:|---:|")
worst_rows = []
for k in range(2, runs + 1):
    c = json.load(open(f"{folder}/compare-1-{k}.json"))
    a, n = c["agreement"], c["counts"]
    w = a["worst"][0] if a["worst"] else None
    worst = f"×{w['ratio']:.3f} `{w['case_id']}`" if w else "-"
    print(f"| 1 vs {k} | {a['cases']} | {a['median_abs_change']*100:.1f}% | {a['p90_abs_change']*100:.1f}% "
          f"| {worst} | {n['slower']} | {n['faster']} | {n['same']} | {n['unknown']} |")
    worst_rows += [(k, x) for x in a["worst"][:5]]
print("\nFarthest from 1 (five per pair):\n")
for k, x in worst_rows:
    print(f"- 1 vs {k}: ×{x['ratio']:.3f} `{x['case_id']}`")
EOF
