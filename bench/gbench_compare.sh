#!/usr/bin/env bash
# Issue #65's goal: two runs of the same build, exported with `--format gbench` and compared by
# google/benchmark's own tools/compare.py (its Mann-Whitney U test over each case's entries),
# should call no more cases different than chance (at most 5% at p < 0.05). The same two result
# files are exported by this build and, with --before BIN, by an earlier opbench, side by side.
#
#   bench/gbench_compare.sh --compare-py PATH [--before BIN] [--ab] [--shard I/N] [-o DIR] [-- RUN ARGS...]
#
# --ab: instead of two runs one after the other, one `opbench ab` of this build against itself
# (both sides measured in the same hour, interleaved; RUN ARGS go to it), each side exported with
# `export --side` (one entry per round), as a CI job would feed compare.py a change's two sides.
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
ab=""
dir="results/gbench-compare-$(date -u +%Y%m%d-%H%M%S)"
while [ $# -gt 0 ]; do
  case "$1" in
    --compare-py) compare_py="$2"; shift 2 ;;
    --before) before="$2"; shift 2 ;;
    --ab) ab=1; shift ;;
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

if [ -n "$ab" ]; then
  [ -z "$before" ] || { echo "gbench_compare: --ab exports with this build only (no --before)" >&2; exit 2; }
  echo "gbench_compare: ab of this build against itself (--shard $shard) at $(date -u +%H:%M:%S)" >&2
  "$opbench" ab --base-bin "$opbench" --new-bin "$opbench" --shard "$shard" "$@" \
    --output "$dir/ab.json" --report "$dir/ab.md" >"$dir/ab.log" 2>&1 || true
  [ -f "$dir/ab.json" ] || { echo "gbench_compare: ab left no A/B file (see $dir/ab.log)" >&2; exit 1; }
else
  for k in 1 2; do
    echo "gbench_compare: run $k of 2 (--shard $shard) at $(date -u +%H:%M:%S)" >&2
    "$opbench" run --shard "$shard" "$@" --output "$dir/run-$k.json" >"$dir/run-$k.log" 2>&1 || true
    [ -f "$dir/run-$k.json" ] || { echo "gbench_compare: run $k left no result (see $dir/run-$k.log)" >&2; exit 1; }
  done
fi

judge() { # NAME BIN
  local name="$1" bin="$2" k side
  for k in 1 2; do
    if [ -n "$ab" ]; then
      side=$([ $k = 1 ] && echo base || echo new)
      "$bin" export --input "$dir/ab.json" --side "$side" --format gbench --output "$dir/$name-$k.gbench.json"
    else
      "$bin" export --input "$dir/run-$k.json" --format gbench --output "$dir/$name-$k.gbench.json"
    fi
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
# What chance alone gives on identical runs: compare.py's U test of m against n values (scipy's
# mannwhitneyu, two-sided; exact up to 8 against 8, else its normal approximation) is under 0.05
# for a share of the orderings of the m + n values (its size, e.g. 3.9-4.1% for 6 against 6, 2.9%
# for 4 against 4); over the cases, the count is a sum of such coin flips. The size: over each
# statistic U, scipy's own p-value for a pair of samples with that U, weighted by how many of the
# C(m + n, m) orderings give it.
from math import comb
from scipy.stats import mannwhitneyu
def size(m, n):
    ways = [[[1] if i == 0 or j == 0 else None for j in range(n + 1)] for i in range(m + 1)]
    for i in range(1, m + 1):  # ways[i][j][u]: orderings of i against j values with U = u
        for j in range(1, n + 1):
            a, b = ways[i - 1][j], ways[i][j - 1]
            ways[i][j] = [(a[u - j] if 0 <= u - j < len(a) else 0) + (b[u] if u < len(b) else 0)
                          for u in range(i * j + 1)]
    ys = list(range(n))
    total = 0
    for u, w in enumerate(ways[m][n]):
        below = [n] * (u // n) + ([u % n] if u % n else [])  # x values above that many ys each
        below += [0] * (m - len(below))
        xs = [c - 0.5 + 0.001 * i for i, c in enumerate(below)]  # no ties: scipy's exact test
        if mannwhitneyu(xs, ys, alternative="two-sided").pvalue < 0.05:
            total += w
    return total / comb(m + n, m)
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
        known[(m, n)] = size(m, n)
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
