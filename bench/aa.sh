#!/usr/bin/env bash
# A/A reproducibility benchmark: runs the same suite N times, each in a fresh `opbench run`
# process, then compares every pair of runs (`opbench compare`, earlier as BASE) and prints, per pair,
# the spread of the per-case median ratios (median / p90 / worst of |new/base - 1|), compare's
# verdict counts and the cases farthest from 1. Identical code on an identical machine: every
# ratio should be 1, so whatever is printed is opbench's (and the machine's) run-to-run noise.
#
#   bench/aa.sh [-n RUNS] [-o DIR] [--taskset CPUS] [--baseline BIN] [-- RUN ARGS...]
#
# RUN ARGS go to every `opbench run` (default: none, i.e. the default suite). --taskset pins each
# run with `taskset -c CPUS`. --baseline BIN measures another opbench build beside this one, its
# runs alternating with this build's (baseline 1, this 1, baseline 2, ...) so that both meet the
# same hours of a shared machine: its A/A rows and run times are printed too. Each pair is also
# compared with `--adjust-speed` (NEW's CPU times divided by the pair's machine speed ratio, the
# ratio of the runs' fastest speed canaries): the "speed-adjusted" column. Results stay in DIR (default
# results/aa-<UTC date>): run-K.json (baseline-run-K.json), compare-I-K.json/.md,
# compare-adjusted-I-K.json (baseline-compare-*), times.txt, table.md. Environment: OPBENCH
# (default build/src/opbench).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
runs=2
dir="results/aa-$(date -u +%Y%m%d-%H%M%S)"
pin=""
baseline=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs="$2"; shift 2 ;;
    -o) dir="$2"; shift 2 ;;
    --taskset) pin="$2"; shift 2 ;;
    --baseline) baseline="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "aa.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ "$runs" -ge 2 ] 2>/dev/null || { echo "aa.sh: -n needs at least 2 runs" >&2; exit 2; }
[ -x "$opbench" ] || { echo "aa.sh: no opbench binary at $opbench (scripts/build.sh builds it)" >&2; exit 2; }
[ -z "$baseline" ] || [ -x "$baseline" ] || { echo "aa.sh: --baseline $baseline is not an executable" >&2; exit 2; }
mkdir -p "$dir"
launcher=()
[ -n "$pin" ] && launcher=(taskset -c "$pin")

# one_run BINARY PREFIX K RUN-ARGS...: one fresh `opbench run` into DIR/PREFIXrun-K.json, timed.
one_run() {
  local binary="$1" prefix="$2" k="$3"
  shift 3
  local start end code=0
  start=$(date +%s.%N)
  "${launcher[@]}" "$binary" run "$@" --output "$dir/${prefix}run-$k.json" >/dev/null 2>"$dir/${prefix}run-$k.log" || code=$?
  end=$(date +%s.%N)
  if [ "$code" -ge 2 ] || [ ! -f "$dir/${prefix}run-$k.json" ]; then
    echo "aa.sh: ${prefix}run $k failed (exit $code); see $dir/${prefix}run-$k.log" >&2
    exit 2
  fi
  python3 -c "print('${prefix}run $k: %.1f s' % ($end - $start))" | tee -a "$dir/times.txt"
}

prefixes=("")
[ -n "$baseline" ] && prefixes=("baseline-" "")
for k in $(seq 1 "$runs"); do
  [ -n "$baseline" ] && one_run "$baseline" baseline- "$k" "$@"
  one_run "$opbench" "" "$k" "$@"
done

for prefix in "${prefixes[@]}"; do
  for i in $(seq 1 $((runs - 1))); do
    for k in $(seq $((i + 1)) "$runs"); do
      for format in json md; do
        "$opbench" compare "$dir/${prefix}run-$i.json" "$dir/${prefix}run-$k.json" --format "$format" \
          --output "$dir/${prefix}compare-$i-$k.$format" || true
      done
      "$opbench" compare "$dir/${prefix}run-$i.json" "$dir/${prefix}run-$k.json" --adjust-speed --format json \
        --output "$dir/${prefix}compare-adjusted-$i-$k.json" 2>/dev/null || true
    done
  done
done

python3 - "$dir" "$runs" "${launcher[*]:-}" "$*" "$baseline" <<'EOF' | tee "$dir/table.md"
import json, sys
folder, runs, pin, args, baseline = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
print(f"A/A: {runs} runs of `opbench run {args}`" + (f" under `{pin}`" if pin else "") + f" ({folder})"
      + (f", alternating with the baseline build `{baseline}`" if baseline else "") + "\n")
builds = [("baseline-", "baseline "), ("", "this build ")] if baseline else [("", "")]
# The machine's speed in each run: its fastest speed canary (one per thread count; the lowest
# thread count's), as `compare` notes it. A pair whose speeds differ moved every case by about as much.
def fastest_canary(path):
    spells = json.load(open(path))["summary"].get("slow_spells", {})
    by_threads = spells.get("fastest_canary_by_threads") or {}
    return by_threads[min(by_threads, key=int)] if by_threads else None
print("| pair | cases | median \\|Δ\\| | p90 \\|Δ\\| | past ×1.25 | worst | slower | faster | same | unknown | machine speed (canary) "
      "| speed-adjusted: median / p90 / past ×1.25 (slower, faster) |")
print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
worst_rows = []
pairs = [(i, k) for i in range(1, runs) for k in range(i + 1, runs + 1)]
for prefix, label in builds:
    for i, k in pairs:
        c = json.load(open(f"{folder}/{prefix}compare-{i}-{k}.json"))
        a, n = c["agreement"], c["counts"]
        w = a["worst"][0] if a["worst"] else None
        worst = f"×{w['ratio']:.3f} `{w['case_id']}`" if w else "-"
        c1, ck = fastest_canary(f"{folder}/{prefix}run-{i}.json"), fastest_canary(f"{folder}/{prefix}run-{k}.json")
        speed = f"×{ck / c1:.3f}" if c1 and ck else "-"
        try:
            adj = json.load(open(f"{folder}/{prefix}compare-adjusted-{i}-{k}.json"))
            aa, an = adj["agreement"], adj["counts"]
            adjusted = (f"{aa['median_abs_change']*100:.1f}% / {aa['p90_abs_change']*100:.1f}% / {aa['past_far_ratio']} "
                        f"({an['slower']}, {an['faster']})" if adj.get("speed_factors") else "(no canary: as measured)")
        except (OSError, ValueError, KeyError):
            adjusted = "-"
        print(f"| {label}{i} vs {k} | {a['cases']} | {a['median_abs_change']*100:.1f}% | {a['p90_abs_change']*100:.1f}% "
              f"| {a.get('past_far_ratio', '-')} | {worst} | {n['slower']} | {n['faster']} | {n['same']} | {n['unknown']} | {speed} "
              f"| {adjusted} |")
        worst_rows += [(f"{label}{i} vs {k}", x) for x in a["worst"][:5]]
print("\nFarthest from 1 (five per pair):\n")
for pair, x in worst_rows:
    print(f"- {pair}: ×{x['ratio']:.3f} `{x['case_id']}`")
# Where each run's time went (summary.time_spent; builds before it have none).
print("\nWhere the time went (s; `summary.time_spent`):\n")
keys = ["wall", "timed", "warmup", "inputs", "retaken", "recording", "canary", "probes", "retried",
        "process_warmup", "other"]
print("| run | " + " | ".join(keys) + " |")
print("|---|" + "---:|" * len(keys))
for prefix, label in builds:
    for k in range(1, runs + 1):
        spent = json.load(open(f"{folder}/{prefix}run-{k}.json"))["summary"].get("time_spent")
        cells = [f"{spent[x]:.1f}" if x in spent else "-" for x in keys] if spent else ["-"] * len(keys)
        print(f"| {label}{k} | " + " | ".join(cells) + " |")
EOF
