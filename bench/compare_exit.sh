#!/usr/bin/env bash
# Can CI trust `opbench compare A.json B.json`'s exit code? (issue #42, goal 3.) Measures RUNS
# runs of the default suite with identical code and RUNS runs where one extra case is made slower,
# alternating, then judges every pair with `opbench compare` and counts exit codes:
#   A/A  every pair of runs of identical code (plain vs plain, slowed vs slowed): exit 0 wanted;
#   A/B  every plain run against every slowed run: exit 1 wanted, with the slowed case `slower`.
# The slowed case is opbench_test::exp_extra over 1M floats (tests/data/libs/extra_work.cpp,
# bench/data/exp_extra.json), planned into the default suite (a config directory of both): with
# OPBENCH_TEST_EXTRA=F (default 0.04) it does about 1+F times the work plus F/16K more calls,
# which came out x1.04-1.07 in `run` and `ab` (docs/ab-log.md, 2026-11-28/29; 0.08 gives about
# x1.10, bench/ab_goals.sh's default); the table gives its ratio over the A/B pairs.
#
#   bench/compare_exit.sh [-n RUNS] [-o DIR] [--extra F] [--taskset CPUS] [--judge-only]
#                         [-- RUN ARGS...]
#
# --judge-only judges the runs already in DIR again (after a change of compare's rule) without
# measuring. RUN ARGS go to the default suite's `opbench run` (default: none). Results stay in
# DIR (default results/compare-exit-<UTC date>): plain-K.json, slowed-K.json, their logs,
# pairs.csv (one row a pair) and table.md: per rule (compare's exit code, and the candidate
# rules below), how many A/A pairs stay quiet and in how many A/B pairs the slowed case fails.
# Environment: OPBENCH (default build/src/opbench).
# Needs the test library: a build with tests (scripts/build.sh) makes it.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
runs=6
dir="results/compare-exit-$(date -u +%Y%m%d-%H%M%S)"
extra=0.04
pin=""
judge_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs="$2"; shift 2 ;;
    -o) dir="$2"; shift 2 ;;
    --extra) extra="$2"; shift 2 ;;
    --taskset) pin="$2"; shift 2 ;;
    --judge-only) judge_only=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "compare_exit.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ "$runs" -ge 2 ] 2>/dev/null || { echo "compare_exit.sh: -n needs at least 2 runs" >&2; exit 2; }
[ -x "$opbench" ] || { echo "compare_exit.sh: no opbench binary at $opbench" >&2; exit 2; }
library="$here/build/tests/libopbench_test_extra.so"
[ -f "$library" ] || { echo "compare_exit.sh: no $library (build with tests: scripts/build.sh)" >&2; exit 2; }
mkdir -p "$dir"
launcher=()
[ -n "$pin" ] && launcher=(taskset -c "$pin")

# The default suite's configs and the extra case's, in one directory: the case is planned and
# scheduled with the suite's (--config-dir), in the same processes.
mkdir -p "$dir/configs"
ln -sf "$here"/configs/ops/* "$dir/configs/"
cp "$here/bench/data/exp_extra.json" "$dir/configs/"

# one_run KIND K FRACTION RUN-ARGS...: the default suite with the extra case, into KIND-K.json.
one_run() {
  local kind="$1" k="$2" fraction="$3"
  shift 3
  local start
  start=$(date +%s)
  OPBENCH_TEST_EXTRA="$fraction" "${launcher[@]}" "$opbench" --config-dir "$dir/configs" run \
    --load-library "$library" "$@" --output "$dir/$kind-$k.json" >/dev/null 2>"$dir/$kind-$k.log" ||
    [ -f "$dir/$kind-$k.json" ] || { echo "compare_exit.sh: $kind run $k failed; see $dir/$kind-$k.log" >&2; exit 2; }
  echo "$kind run $k: $(( $(date +%s) - start )) s" | tee -a "$dir/times.txt"
}

if [ "$judge_only" = 0 ]; then
  for k in $(seq 1 "$runs"); do
    one_run plain "$k" 0 "$@"
    one_run slowed "$k" "$extra" "$@"
  done
fi

case_id="opbench_test::exp_extra/self=1024x1024/float32/cpu/t1/forward"
# Besides compare's exit code, each pair is judged by candidate rules for it, from the same JSON
# (a case fails the rule when it is `slower` and):
#   interval    the ratio's whole interval lies past 1 + threshold (confidently more than it);
#   outlier     its log ratio stands out of this pair's own scatter over all cases (median and
#               1.4826 MAD of the log ratios, an empirical null) past the Bonferroni normal quantile
#               z(1 - alpha / 2m) for m cases;
#   both        interval and outlier.
echo "kind,base,new,exit,slower,unknown,extra_verdict,extra_ratio,interval,outlier,both,extra_interval,extra_outlier,extra_both,slower_cases" >"$dir/pairs.csv"
judge() { # judge KIND BASE NEW
  local code=0
  "$opbench" compare "$dir/$2.json" "$dir/$3.json" --format json --output "$dir/compare-$2-$3.json" 2>/dev/null || code=$?
  python3 - "$dir/compare-$2-$3.json" "$1" "$2" "$3" "$code" "$case_id" >>"$dir/pairs.csv" <<'PY'
import json, math, statistics, sys
from statistics import NormalDist
path, kind, base, new, code, case_id = sys.argv[1:]
c = json.load(open(path))
n = c["counts"]
cases = [x for x in c["cases"] if x["ratio"] and x["ratio"] > 0]
logs = [math.log(x["ratio"]) for x in cases]
centre = statistics.median(logs)
scale = 1.4826 * statistics.median([abs(v - centre) for v in logs])
z = NormalDist().inv_cdf(1 - c["alpha"] / (2 * len(cases)))
slower = [x for x in cases if x["verdict"] == "slower"]
interval = {x["case_id"] for x in slower if x["ratio_low"] and x["ratio_low"] > 1 + c["threshold"]}
outlier = {x["case_id"] for x in slower if (math.log(x["ratio"]) - centre) > z * scale}
both = interval & outlier
extra = next((x for x in c["cases"] if x["case_id"] == case_id), {})
print(f"{kind},{base},{new},{code},{n['slower']},{n['unknown']},{extra.get('verdict', '')},"
      f"{extra.get('ratio') or ''},{len(interval)},{len(outlier)},{len(both)},"
      f"{int(case_id in interval)},{int(case_id in outlier)},{int(case_id in both)},"
      f"{' '.join(x['case_id'] for x in slower[:5])}")
PY
}
for kind in plain slowed; do
  for i in $(seq 1 "$runs"); do
    for k in $(seq $((i + 1)) "$runs"); do judge "A/A" "$kind-$i" "$kind-$k"; done
  done
done
for i in $(seq 1 "$runs"); do
  for k in $(seq 1 "$runs"); do judge "A/B" "plain-$i" "slowed-$k"; done
done

python3 - "$dir" "$extra" <<'PY' | tee "$dir/table.md"
import csv, statistics, sys
folder, extra = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(f"{folder}/pairs.csv")))
aa = [r for r in rows if r["kind"] == "A/A"]
ab = [r for r in rows if r["kind"] == "A/B"]
ratios = sorted(float(r["extra_ratio"]) for r in ab if r["extra_ratio"])
same = sorted(float(r["extra_ratio"]) for r in aa if r["extra_ratio"])
print(f"compare's exit code on {folder} (OPBENCH_TEST_EXTRA={extra}); the slowed case's ratio in "
      f"the A/B pairs: median x{statistics.median(ratios):.3f}, range x{ratios[0]:.3f}-x{ratios[-1]:.3f}; "
      f"in the A/A pairs (its own run-to-run noise): x{same[0]:.3f}-x{same[-1]:.3f}\n")
print("| rule | A/A: quiet (no case fails) | A/B: the slowed case fails | A/B: it alone fails |")
print("|---|---:|---:|---:|")
quiet = sum(r["exit"] == "0" for r in aa)
caught = sum(r["exit"] == "1" and r["extra_verdict"] == "slower" for r in ab)
alone = sum(r["exit"] == "1" and r["extra_verdict"] == "slower" and r["slower"] == "1" for r in ab)
print(f"| compare's exit code (any `slower`) | {quiet} of {len(aa)} | {caught} of {len(ab)} | {alone} of {len(ab)} |")
for rule in ("interval", "outlier", "both"):
    quiet = sum(r[rule] == "0" for r in aa)
    caught = sum(r["extra_" + rule] == "1" for r in ab)
    alone = sum(r["extra_" + rule] == "1" and r[rule] == "1" for r in ab)
    print(f"| {rule} | {quiet} of {len(aa)} | {caught} of {len(ab)} | {alone} of {len(ab)} |")
print("\n| kind | base | new | exit | slower | unknown | slowed case | ratio | interval | outlier | both | cases slower (five) |")
print("|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---|")
for r in rows:
    ratio = f"{float(r['extra_ratio']):.3f}" if r["extra_ratio"] else "-"
    print(f"| {r['kind']} | {r['base']} | {r['new']} | {r['exit']} | {r['slower']} | {r['unknown']} "
          f"| {r['extra_verdict']} | {ratio} | {r['interval']} | {r['outlier']} | {r['both']} | {r['slower_cases']} |")
PY
