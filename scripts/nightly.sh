#!/usr/bin/env bash
# Nightly regression job. Runs `opbench run` (extra arguments go to it), stores the result as
# NIGHTLY_DIR/nightly-<UTC date>.json, compares it with the newest earlier result in that
# directory, writes the comparison as Markdown next to it (NAME.compare.md) and exits with
# compare's code: 0 no regression, 1 a case is significantly slower, 2 bad input. The first night
# has nothing to compare with: it writes the run's own Markdown report and exits with run's code.
#
# Environment: OPBENCH (the binary; default build/src/opbench), OPBENCH_NIGHTLY_DIR (default
# results/nightly), OPBENCH_COMPARE_ARGS (extra arguments of compare, e.g. "--threshold 0.1").
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
dir="${OPBENCH_NIGHTLY_DIR:-results/nightly}"
mkdir -p "$dir"

previous="$(ls -1t "$dir"/nightly-*.json 2>/dev/null | head -n 1 || true)"
stamp="$(date -u +%Y%m%d-%H%M%S)"
out="$dir/nightly-$stamp.json"
n=1
while [ -e "$out" ]; do out="$dir/nightly-$stamp-$n.json"; n=$((n + 1)); done

"$opbench" run "$@" --output "$out"
run_code=$?
if [ "$run_code" -ge 2 ] || [ ! -f "$out" ]; then
  echo "nightly: opbench run failed with exit code $run_code" >&2
  exit "$run_code"
fi

summary="${out%.json}.compare.md"
if [ -z "$previous" ]; then
  "$opbench" export --input "$out" --format md --output "${out%.json}.md"
  echo "nightly: first result in $dir, nothing to compare with; report: ${out%.json}.md"
  exit "$run_code"
fi
# shellcheck disable=SC2086
"$opbench" compare "$previous" "$out" --format md --output "$summary" ${OPBENCH_COMPARE_ARGS:-}
code=$?
echo "nightly: compared $previous with $out (exit $code); summary: $summary"
exit "$code"
