#!/usr/bin/env bash
# Issue #61's goals for `opbench ab`, measured side by side in one script (docs/ab-log.md):
#   A/A   RUNS `ab` runs of identical builds over a shard of the default suite plus
#         opbench_test::exp_extra: exit 0 and no case slower or faster, wanted in (almost) all;
#   A/B   RUNS `ab` runs whose new side makes that case about 10% slower (OPBENCH_TEST_EXTRA=F in
#         the new side's processes only, through a wrapper binary): the case `slower`, no other;
#   LIB   RUNS `ab` runs of two builds of the test library, the new one doing 1 + G times the
#         work (OPBENCH_TEST_EXTRA_SLOW=G), beside ATen's exp: it `slower`, exp not;
#   2F    the two-file answer on the same builds: per iteration one plain and one slowed
#         `opbench run` of the shard, judged by `opbench compare` (plain against the last plain:
#         A/A; plain against slowed: A/B).
# The kinds alternate within each iteration, so each sees the same hours.
#
#   bench/ab_goals.sh [-n RUNS] [--shard I/N] [--rounds R] [--extra F] [--lib-extra G] [-o DIR]
#                     [--schedules interleaved,duet] [--kinds aa,ab,lib,2f] [-- AB ARGS...]
#
# --schedules: each `ab` kind once per schedule in every iteration, one after the other (rows
# "aa-duet" and so on when more than one is given); --kinds: which kinds run (default all).
#
# Defaults: 5 runs, the shard of 16 that holds the extra case, 20 rounds (ab's default), F 0.08
# (x1.08-1.11 in ab here, 2026-11-29; 0.04 gave x1.05: docs/ab-log.md), G 0.12. Results stay in
# DIR (default results/ab-goals-<UTC date>): every ab's file (its side runs under FILE.runs/),
# the runs, rows.csv (one row an ab or a compare) and table.md. Environment: OPBENCH (default build/src/opbench).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
runs=5
shard=""
rounds=20
extra=0.08
lib_extra=0.12
schedules=interleaved
kinds=aa,ab,lib,2f
dir="results/ab-goals-$(date -u +%Y%m%d-%H%M%S)"
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs="$2"; shift 2 ;;
    --shard) shard="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --extra) extra="$2"; shift 2 ;;
    --lib-extra) lib_extra="$2"; shift 2 ;;
    -o) dir="$2"; shift 2 ;;
    --schedules) schedules="$2"; shift 2 ;;
    --kinds) kinds="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "ab_goals.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$opbench" ] || { echo "ab_goals.sh: no opbench binary at $opbench" >&2; exit 2; }
library="$here/build/tests/libopbench_test_extra.so"
slow_library="$here/build/tests/libopbench_test_extra_slow.so"
for l in "$library" "$slow_library"; do
  [ -f "$l" ] || { echo "ab_goals.sh: no $l (build with tests: scripts/build.sh)" >&2; exit 2; }
done
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

# The default suite's configs and the extra case's, in one directory (as compare_exit.sh).
mkdir -p "$dir/configs"
ln -sf "$here"/configs/ops/* "$dir/configs/"
cp "$here/bench/data/exp_extra.json" "$dir/configs/"
case_id="opbench_test::exp_extra/self=1024x1024/float32/cpu/t1/forward"
if [ -z "$shard" ]; then
  for i in $(seq 0 15); do
    if "$opbench" --config-dir "$dir/configs" run --load-library "$library" --shard "$i/16" --dry-run 2>/dev/null |
      grep -qxF "$case_id"; then shard="$i/16"; break; fi
  done
fi
echo "ab_goals.sh: shard $shard, $runs run(s) of each kind, $rounds round(s) at most, into $dir" >&2
# The new side of A/B: this opbench, its processes doing the extra work.
cat >"$dir/slowed-opbench" <<EOF
#!/bin/sh
OPBENCH_TEST_EXTRA=$extra exec "$opbench" "\$@"
EOF
chmod +x "$dir/slowed-opbench"
lib_config="$dir/lib.json"
cat >"$lib_config" <<'EOF'
{"operators": [
  {"op": "opbench_test::exp_extra", "cases": [{"args": {"self": "1024x1024"}}]},
  {"op": "exp", "cases": [{"args": {"self": "1024x1024"}}]}]}
EOF

echo "kind,k,exit,seconds,slower,faster,same,unknown,extra_verdict,extra_ratio,other_slower,other_faster,median_seeable,rounds" >"$dir/rows.csv"
row() { # row KIND K EXIT SECONDS FILE: one ab's verdicts
  python3 - "$@" "$case_id" >>"$dir/rows.csv" <<'PY'
import json, statistics, sys
kind, k, code, seconds, path, case_id = sys.argv[1:]
d = json.load(open(path))
cases = d["cases"]
n = d["counts"]
extra = next((c for c in cases if c["case"]["case_id"] == case_id), {})
others = [c for c in cases if c["case"]["case_id"] != case_id]
seeable = [c["seeable_change"] for c in cases if c["seeable_change"] is not None]
print(f"{kind},{k},{code},{seconds},{n['slower']},{n['faster']},{n['same']},{n['unknown']},"
      f"{extra.get('verdict', '')},{extra.get('ratio') or ''},"
      f"{sum(c['verdict'] == 'slower' for c in others)},{sum(c['verdict'] == 'faster' for c in others)},"
      f"{statistics.median(seeable) if seeable else ''},{d['settings']['rounds_done']}")
PY
}
one_ab() { # one_ab KIND K ARGS...
  local kind="$1" k="$2" start code=0
  shift 2
  start=$(date +%s)
  "$opbench" --config-dir "$dir/configs" ab "$@" --rounds "$rounds" --output "$dir/$kind-$k.json" \
    --format csv --report "$dir/$kind-$k.csv" 2>"$dir/$kind-$k.log" || code=$?
  [ -f "$dir/$kind-$k.json" ] || { echo "ab_goals.sh: $kind $k wrote nothing; see $dir/$kind-$k.log" >&2; exit 2; }
  row "$kind" "$k" "$code" "$(( $(date +%s) - start ))" "$dir/$kind-$k.json"
  echo "$kind $k: exit $code, $(( $(date +%s) - start )) s" >&2
}
one_run() { # one_run NAME FRACTION: the shard as one `opbench run` (the two-file way)
  local start
  start=$(date +%s)
  OPBENCH_TEST_EXTRA="$2" "$opbench" --config-dir "$dir/configs" run --load-library "$library" \
    --shard "$shard" --output "$dir/$1.json" >/dev/null 2>"$dir/$1.log" || [ -f "$dir/$1.json" ] ||
    { echo "ab_goals.sh: run $1 failed; see $dir/$1.log" >&2; exit 2; }
  echo "run,${1},,$(( $(date +%s) - start )),,,,,,,,,," >>"$dir/rows.csv"
}
two_file() { # two_file KIND K BASE NEW
  local code=0
  "$opbench" compare "$dir/$3.json" "$dir/$4.json" --format json --output "$dir/compare-$3-$4.json" 2>/dev/null || code=$?
  python3 - "$1" "$2" "$code" "$dir/compare-$3-$4.json" "$case_id" >>"$dir/rows.csv" <<'PY'
import json, sys
kind, k, code, path, case_id = sys.argv[1:]
d = json.load(open(path))
n = d["counts"]
extra = next((c for c in d["cases"] if c["case_id"] == case_id), {})
others = [c for c in d["cases"] if c["case_id"] != case_id]
print(f"{kind},{k},{code},,{n['slower']},{n['faster']},{n['same']},{n['unknown']},"
      f"{extra.get('verdict', '')},{extra.get('ratio') or ''},"
      f"{sum(c['verdict'] == 'slower' for c in others)},{sum(c['verdict'] == 'faster' for c in others)},,")
PY
}

wants() { [[ ",$kinds," == *",$1,"* ]]; }
IFS=, read -r -a schedule_list <<<"$schedules"
for k in $(seq 1 "$runs"); do
  for schedule in "${schedule_list[@]}"; do
    suffix=""
    [ "${#schedule_list[@]}" -gt 1 ] && suffix="-$schedule"
    wants aa && one_ab "aa$suffix" "$k" --schedule "$schedule" --load-library "$library" --shard "$shard" \
      --base-bin "$opbench" --new-bin "$opbench" "$@"
    wants ab && one_ab "ab$suffix" "$k" --schedule "$schedule" --load-library "$library" --shard "$shard" \
      --base-bin "$opbench" --new-bin "$dir/slowed-opbench" "$@"
    wants lib && OPBENCH_TEST_EXTRA_SLOW="$lib_extra" one_ab "lib$suffix" "$k" --schedule "$schedule" \
      --base-library "$library" --new-library "$slow_library" --config "$lib_config" "$@"
  done
  if wants 2f; then
    one_run "plain-$k" 0
    one_run "slowed-$k" "$extra"
    [ "$k" -gt 1 ] && two_file 2f-aa "$k" "plain-$((k - 1))" "plain-$k"
    two_file 2f-ab "$k" "plain-$k" "slowed-$k"
  fi
done

python3 - "$dir" <<'PY' | tee "$dir/table.md"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/rows.csv")))
def of(kind): return [r for r in rows if r["kind"] == kind]
def frac(rs, test): return f"{sum(1 for r in rs if test(r))} of {len(rs)}"
quiet = lambda r: r["exit"] == "0" and r["slower"] == "0" and r["faster"] == "0"
caught = lambda r: r["extra_verdict"] == "slower"
clean = lambda r: r["other_slower"] == "0"
print("| kind | exit 0, nothing slower or faster | the changed case `slower` | no other case `slower` | median seeable change | seconds (median) |")
print("|---|---|---|---|---|---|")
labels = [("aa", "ab, identical builds"), ("2f-aa", "compare, identical builds"),
          ("ab", "ab, the case ~10% slower"), ("2f-ab", "compare, the case ~10% slower"),
          ("lib", "ab, the library's slower build")]
for schedule in ("interleaved", "duet"):  # rows of a run with --schedules of more than one
    labels += [(f"{k}-{schedule}", f"{l} ({schedule})") for k, l in labels[:5] if not k.startswith("2f")]
for kind, label in labels:
    rs = of(kind)
    if not rs:
        continue
    seeable = [float(r["median_seeable"]) for r in rs if r["median_seeable"]]
    secs = [float(r["seconds"]) for r in rs if r["seconds"]]
    print(f"| {label} | {frac(rs, quiet)} | {frac(rs, caught) if not kind.startswith(('aa', '2f-aa')) else '-'} | "
          f"{frac(rs, clean)} | {f'{statistics.median(seeable) * 100:.1f}%' if seeable else '-'} | "
          f"{statistics.median(secs) if secs else '-'} |")
runs = [float(r["seconds"]) for r in rows if r["kind"] == "run"]
if runs:
    print(f"\nOne `opbench run` of the shard: {statistics.median(runs):.0f} s (median of {len(runs)}).")
PY
