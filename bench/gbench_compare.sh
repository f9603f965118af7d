#!/usr/bin/env bash
# Issue #65's goal: two runs of the same build, exported with `--format gbench` and compared by
# google/benchmark's own tools/compare.py (its Mann-Whitney U test over each case's entries),
# should call no more cases different than chance (at most 5% at p < 0.05). The same two result
# files are exported by this build and, with --before BIN, by an earlier opbench, side by side.
#
#   bench/gbench_compare.sh --compare-py PATH [--before BIN] [--shard I/N] [-o DIR] [-- RUN ARGS...]
#
# PATH: google/benchmark's tools/compare.py (a checkout of github.com/google/benchmark; this
# machine has no GitHub, so it is not fetched here). Its numpy and scipy go into DIR/venv from
# PyPI. Defaults: shard 1/8 of the default suite, DIR results/gbench-compare-<UTC date>. Prints,
# per export, the cases U-tested, how many have p < 0.05 and p < 0.01, the entries per case and
# compare.py's lines, and what chance alone gives on identical runs (each case's exact U test's
# size); every file stays in DIR (runs, exports, compare.py's output and JSON dump).
# Environment: OPBENCH (default build/src/opbench).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
compare_py=""
before=""
shard="1/8"
dir="results/gbench-compare-$(date -u +%Y%m%d-%H%M%S)"
while [ $# -gt 0 ]; do
  case "$1" in
    --compare-py) compare_py="$2"; shift 2 ;;
    --before) before="$2"; shift 2 ;;
    --shard) shard="$2"; shift 2 ;;
    -o) dir="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "gbench_compare.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -f "$compare_py" ] || { echo "gbench_compare.sh: --compare-py PATH names google/benchmark's tools/compare.py (got '$compare_py')" >&2; exit 2; }
mkdir -p "$dir"
if [ ! -x "$dir/venv/bin/python" ]; then
  python3 -m venv "$dir/venv"
  "$dir/venv/bin/pip" install -q numpy scipy
fi

for k in 1 2; do
  echo "gbench_compare: run $k of 2 (--shard $shard) at $(date -u +%H:%M:%S)" >&2
  "$opbench" run --shard "$shard" "$@" --output "$dir/run-$k.json" >"$dir/run-$k.log" 2>&1 || true
  [ -f "$dir/run-$k.json" ] || { echo "gbench_compare: run $k left no result (see $dir/run-$k.log)" >&2; exit 1; }
done

judge() { # NAME BIN
  local name="$1" bin="$2"
  for k in 1 2; do
    "$bin" export --input "$dir/run-$k.json" --format gbench --output "$dir/$name-$k.gbench.json"
  done
  "$dir/venv/bin/python" "$compare_py" --no-color -d "$dir/$name.compare.json" benchmarks \
    "$dir/$name-1.gbench.json" "$dir/$name-2.gbench.json" >"$dir/$name.compare.txt"
  "$dir/venv/bin/python" - "$name" "$dir/$name.compare.json" "$dir/$name-1.gbench.json" "$dir/$name.compare.txt" <<'EOF'
import json, sys
name, dump, export, text = sys.argv[1:5]
rows = json.load(open(dump))
p = [r["utest"]["time_pvalue"] for r in rows if r.get("utest") and r["utest"].get("time_pvalue") is not None]
entries = json.load(open(export))["benchmarks"]
cases = len({e["run_name"] for e in entries})
lines = sum(1 for _ in open(text))
print(f"{name}: {len(p)} cases U-tested, p < 0.05: {sum(v < 0.05 for v in p)} "
      f"({100 * sum(v < 0.05 for v in p) / max(1, len(p)):.1f}%), p < 0.01: {sum(v < 0.01 for v in p)}; "
      f"{len(entries)} entries for {cases} cases ({len(entries) / max(1, cases):.1f} a case); "
      f"compare.py printed {lines} lines")
# What chance alone gives on identical runs: compare.py's exact U test of m against n values is
# under 0.05 for a share of the orderings of the m + n ranks (its size, e.g. 3.9-4.1% for 6
# against 6, 2.9% for 4 against 4); over the cases, the count is a sum of such coin flips.
from itertools import combinations
from scipy.stats import mannwhitneyu
counts = {}
for k, f in ((0, export), (1, export.replace("-1.gbench.json", "-2.gbench.json"))):
    for e in json.load(open(f))["benchmarks"]:
        if e["run_type"] == "iteration":
            counts.setdefault(e["run_name"], [0, 0])[k] += 1
sizes, known = [], {}
for r in rows:
    if not (r.get("utest") and r["utest"].get("time_pvalue") is not None):
        continue
    m, n = counts.get(r["name"], [0, 0])
    if (m, n) not in known:
        ranks = range(m + n)
        flips = [mannwhitneyu(a, [v for v in ranks if v not in a], alternative="two-sided",
                              method="exact").pvalue < 0.05 for a in map(list, combinations(ranks, m))]
        known[(m, n)] = sum(flips) / len(flips)
    sizes.append(known[(m, n)])
dist = [1.0]  # the chance count's distribution, one case at a time
for s in sizes:
    dist = [(dist[i] if i < len(dist) else 0) * (1 - s) + (dist[i - 1] * s if i else 0)
            for i in range(len(dist) + 1)]
seen, bar = sum(v < 0.05 for v in p), int(0.05 * len(p))
print(f"{name}: chance alone expects {sum(sizes):.1f} cases under 0.05, stays within 5% ({bar}) "
      f"with probability {sum(dist[:bar + 1]):.2f}, and gives {seen} or more with probability "
      f"{sum(dist[seen:]):.3f}")
EOF
}
judge now "$opbench"
[ -n "$before" ] && judge before "$before"
echo "gbench_compare: files in $dir" >&2
