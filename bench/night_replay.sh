#!/usr/bin/env bash
# The gate over a regression and its fix (issue #59): QUIET nights of a small suite build a
# history (scripts/nightly.sh), then SLOW nights of a really slower build (a wrapper runs opbench
# with ATEN_CPU_CAPABILITY=default, so ATen's kernels take their non-vectorised code, while the
# previous build, the last good night's binary, stays as it is: the A/B confirmation sees the
# change), then FIXED nights of the build as it was. Prints per night the gate's exit code, its
# verdict counts, the blind cases and how many of them the gate still called `same` (with the
# largest move among those), and the failures of the night's JUnit file (where the script writes
# one). Before 2026-11-28 the slow nights entered the history, and after the fix 6 of 10 cases
# were blind; they are held out now (history add --gate).
#
#   bench/night_replay.sh [-q QUIET=6] [-s SLOW=2] [-f FIXED=1] [-o DIR] [--taskset CPUS]
#                         [-- RUN ARGS...]   (default: --ops add,relu,softmax,mm
#                                             --shape-class small,common)
# Environment: OPBENCH (default build/src/opbench), NIGHTLY (the nightly script; default this
# checkout's scripts/nightly.sh: give an older checkout's to replay an older build).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="$(realpath "${OPBENCH:-$here/build/src/opbench}")"
nightly="${NIGHTLY:-$here/scripts/nightly.sh}"
quiet=6 slow=2 fixed=1 dir="" pin=""
while [ $# -gt 0 ]; do
  case "$1" in
    -q) quiet="$2"; shift 2 ;;
    -s) slow="$2"; shift 2 ;;
    -f) fixed="$2"; shift 2 ;;
    -o) dir="$2"; shift 2 ;;
    --taskset) pin="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "night_replay.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || set -- --ops add,relu,softmax,mm --shape-class small,common
[ -x "$opbench" ] || { echo "night_replay.sh: no opbench binary at $opbench" >&2; exit 2; }
dir="${dir:-$(mktemp -d /tmp/opbench-night-replay-XXXXXX)}"
mkdir -p "$dir"
export OPBENCH_NIGHTLY_DIR="$dir/nightly"
printf '#!/bin/sh\nATEN_CPU_CAPABILITY=default exec "%s" "$@"\n' "$opbench" >"$dir/opbench-scalar"
chmod +x "$dir/opbench-scalar"
runner=()
[ -z "$pin" ] || runner=(taskset -c "$pin")

summary() { # night build exit
  local gate junit
  gate="$(ls -1t "$OPBENCH_NIGHTLY_DIR"/*.gate.json 2>/dev/null | head -n 1 || true)"
  junit="$(ls -1t "$OPBENCH_NIGHTLY_DIR"/*.gate.junit.xml 2>/dev/null | head -n 1 || true)"
  python3 - "$1" "$2" "$3" "${gate:-}" "${junit:-}" "$dir/seen" <<'PY'
import json, os, sys, xml.etree.ElementTree as ET
night, build, code, gate, junit, seen = sys.argv[1:]
done = set(open(seen).read().split()) if os.path.exists(seen) else set()
row = [night, build, code]
if gate and gate not in done:
    r = json.load(open(gate))
    cases = r['cases']
    blind = [c for c in cases if c['blind']]
    blind_same = [c for c in blind if c['verdict'] == 'same']
    worst = max((abs((c['ratio'] or 1) - 1) for c in blind_same), default=0)
    mde = max((c['mde'] or 0 for c in blind), default=0)
    n = r['counts']
    row += ['%d slower, %d faster, %d same, %d unknown' % (n['slower'], n['faster'], n['same'], n['unknown']),
            '%d (MDE up to %.0f%%)' % (len(blind), mde * 100),
            '%d%s' % (len(blind_same), ' (largest move %+.1f%%)' % (worst * 100) if blind_same else '')]
    open(seen, 'a').write(gate + '\n')
else:
    row += ['no verdict (the history is being built)', '-', '-']
if junit and junit not in done:
    suite = ET.parse(junit).getroot()
    failures = sum(1 for t in suite.iter('testcase') if t.find('failure') is not None)
    row.append('%d failure(s) of %d' % (failures, sum(1 for _ in suite.iter('testcase'))))
    open(seen, 'a').write(junit + '\n')
else:
    row.append('none written')
print('| ' + ' | '.join(row) + ' |')
PY
}

echo "| night | build | exit | verdicts | blind | blind and same | JUnit |"
echo "|---:|---|---:|---|---|---|---|"
n=0
for kind in quiet slow fixed; do
  count="${!kind}"
  for _ in $(seq 1 "$count"); do
    n=$((n + 1))
    bin="$opbench"
    [ "$kind" = slow ] && bin="$dir/opbench-scalar"
    code=0
    OPBENCH="$bin" OPBENCH_LABEL="night-$n-$kind" "${runner[@]}" "$nightly" "$@" >>"$dir/nights.log" 2>&1 || code=$?
    summary "$n" "$kind" "$code"
  done
done
echo
echo "night_replay.sh: files in $dir (nights.log, nightly/)"
