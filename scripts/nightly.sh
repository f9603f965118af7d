#!/usr/bin/env bash
# Nightly regression gate (docs/nightly.md). One night:
#   1. `opbench run` (extra arguments go to it) into NIGHTLY_DIR/nightly-<UTC date>.json;
#   2. `opbench compare --history`: every case against its own last nights in the history
#      (SQLite); cases whose move has p < 5% get a second look: measured again at once with the
#      night's own settings (`run --from NAME.json --case ... RUN ARGUMENTS`, NAME.second-look.json),
#      and a case becomes a candidate only when both values together moved significantly
#      (NAME.gate.candidates); OPBENCH_SECOND_LOOK=0 skips the second look;
#   3. the candidates are measured again, each repetition in a fresh process (`run --from
#      NAME.json --case ... --isolate`, NAME.confirm.json); with OPBENCH_BASELINE_BIN (the previous
#      build's opbench; by default the binary of the last night that passed, which this script
#      keeps as NIGHTLY_DIR/opbench.previous), A/B instead, like Pinpoint: `opbench ab` of the
#      candidates, the previous build against tonight's, OPBENCH_AB_ROUNDS rounds (default 20) of
#      a fresh process of each side, interleaved (NAME.ab.json, its report NAME.ab.md, its side
#      runs under NAME.ab.json.runs/); a previous build ab refuses falls back to the first way;
#   4. `opbench compare --history ... --confirm NAME.confirm.json | --confirm-ab NAME.ab.json`:
#      only a change the second measurement confirms is slower / faster (A/B: tonight's build
#      against the previous one, the paired rounds); the report is NAME.gate.md (and .json), the
#      final verdicts as JUnit XML in NAME.gate.junit.xml (every confirmed slow-down, more memory
#      and every case that failed tonight a failure), and NAME.gate.md appended to
#      $GITHUB_STEP_SUMMARY when that is set;
#   5. the night is added to the history (`opbench history add --gate NAME.gate.json`): a case the
#      gate judged slower is held out of every baseline until the change is accepted (`history
#      accept`) or included again (`history include`), so after a fix the gate judges against the
#      nights before the regression.
# The first nights (fewer than the gate's --min-history, 5) only build the history.
# Exit: 0 no confirmed slow-down, 1 a confirmed slow-down or a case that failed, 2 bad input or a
# run that could not finish, 4 no slow-down but a case whose call takes more memory than the last
# night that probed it (exact, on the same LibTorch; the report's "More memory").
#
# Environment: OPBENCH (the binary; default build/src/opbench), OPBENCH_NIGHTLY_DIR (default
# results/nightly), OPBENCH_HISTORY (default NIGHTLY_DIR/history.sqlite), OPBENCH_LABEL (names the
# night in the history, e.g. the commit), OPBENCH_GATE_ARGS (extra arguments of both compares,
# e.g. "--effect-floor 0.05"), OPBENCH_CONFIRM_ARGS (extra arguments of the confirmation runs),
# OPBENCH_BASELINE_BIN (the previous build's binary: confirm A/B against it; default
# NIGHTLY_DIR/opbench.previous), OPBENCH_KEEP_PREVIOUS (0: neither keep nor use it), OPBENCH_AB_ROUNDS,
# OPBENCH_SECOND_LOOK (0: no second look), OPBENCH_NIGHT_RESULT (a night already measured, e.g.
# merged shards: judge and add it instead of running step 1; OPBENCH_NIGHT_RUN_CODE its runs' exit
# code; scripts/nightly-slurm.sh sets both).
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
dir="${OPBENCH_NIGHTLY_DIR:-results/nightly}"
db="${OPBENCH_HISTORY:-$dir/history.sqlite}"
mkdir -p "$dir"
# The last good night's binary, kept here by this script: the A/B confirmation's previous build
# unless OPBENCH_BASELINE_BIN names one (OPBENCH_KEEP_PREVIOUS=0: keep none, confirm against the
# history).
previous="$dir/opbench.previous"
baseline_bin="${OPBENCH_BASELINE_BIN:-}"
if [ -z "$baseline_bin" ] && [ "${OPBENCH_KEEP_PREVIOUS:-1}" != 0 ] && [ -x "$previous" ]; then
  baseline_bin="$previous"
fi

if [ -n "${OPBENCH_NIGHT_RESULT:-}" ]; then
  # A night measured elsewhere (the merged shards of scripts/nightly-slurm.sh): judged and added
  # from here on as if this script had run it; OPBENCH_NIGHT_RUN_CODE is its runs' exit code.
  out="$OPBENCH_NIGHT_RESULT"
  [ -f "$out" ] || { echo "nightly: OPBENCH_NIGHT_RESULT '$out' is not a file" >&2; exit 2; }
  base="${out%.json}"
  run_code="${OPBENCH_NIGHT_RUN_CODE:-0}"
else
  stamp="$(date -u +%Y%m%d-%H%M%S)"
  out="$dir/nightly-$stamp.json"
  n=1
  while [ -e "$out" ]; do out="$dir/nightly-$stamp-$n.json"; n=$((n + 1)); done
  base="${out%.json}"

  "$opbench" run "$@" --output "$out"
  run_code=$?
  if [ "$run_code" -ge 2 ] || [ ! -f "$out" ]; then
    echo "nightly: opbench run failed with exit code $run_code" >&2
    exit "$run_code"
  fi
fi

# This script's own night file names the operator libraries its cases ran; `run --from` loads
# them only when told (an opbench from before 2026-11-28 loaded them by itself).
recorded_libraries() { if "$1" run --help 2>/dev/null | grep -q -- '--load-recorded-libraries'; then echo "--load-recorded-libraries"; fi; }
new_libraries="$(recorded_libraries "$opbench")"

gate_code=0
if [ -f "$db" ]; then
  # shellcheck disable=SC2086
  "$opbench" compare --history "$db" "$out" --looks-out "$base.gate.looks" --candidates-out "$base.gate.candidates" \
    --fail-on time --format json --output "$base.gate.first.json" ${OPBENCH_GATE_ARGS:-} || { echo "nightly: the gate could not judge $out" >&2; exit 2; }
  look=()
  if [ -s "$base.gate.looks" ] && [ "${OPBENCH_SECOND_LOOK:-1}" != 0 ]; then
    cases=()
    while IFS= read -r id; do cases+=(--case "$id"); done <"$base.gate.looks"
    echo "nightly: $(wc -l <"$base.gate.looks") case(s) for a second look; measuring them again with tonight's settings" >&2
    # shellcheck disable=SC2086
    "$opbench" run --from "$out" "${cases[@]}" $new_libraries "$@" --output "$base.second-look.json"
    if [ -f "$base.second-look.json" ]; then
      look=(--second-look "$base.second-look.json")
      # shellcheck disable=SC2086
      "$opbench" compare --history "$db" "$out" "${look[@]}" --candidates-out "$base.gate.candidates" --fail-on time --format json \
        --output "$base.gate.looked.json" ${OPBENCH_GATE_ARGS:-} || { echo "nightly: the gate could not judge $out" >&2; exit 2; }
    fi
  fi
  confirm=()
  if [ -s "$base.gate.candidates" ]; then
    cases=()
    while IFS= read -r id; do cases+=(--case "$id"); done <"$base.gate.candidates"
    echo "nightly: $(wc -l <"$base.gate.candidates") candidate(s); measuring them again in fresh processes" >&2
    if [ -n "$baseline_bin" ]; then
      [ -x "$baseline_bin" ] || { echo "nightly: OPBENCH_BASELINE_BIN '$baseline_bin' is not an executable" >&2; exit 2; }
      # `opbench ab`: the previous build (base) against tonight's (new), every candidate in every
      # round (--stop-after 0: the gate judges the rounds itself, at its own level and floor).
      rounds="${OPBENCH_AB_ROUNDS:-20}"
      echo "nightly: A/B against $baseline_bin, $rounds round(s) (opbench ab)" >&2
      # shellcheck disable=SC2086
      "$opbench" ab --base-bin "$baseline_bin" --new-bin "$opbench" --from "$out" "${cases[@]}" $new_libraries \
        --rounds "$rounds" --stop-after 0 --output "$base.ab.json" --report "$base.ab.md" ${OPBENCH_CONFIRM_ARGS:-}
      ab_code=$?
      if [ "$ab_code" -ne 2 ] && [ -f "$base.ab.json" ]; then
        confirm=(--confirm-ab "$base.ab.json")
      else
        # A previous build that ab refuses (one from before `opbench --version` named its result
        # schema) or an A/B that measured nothing: the confirmation is against the history.
        echo "nightly: the A/B against $baseline_bin measured nothing (exit $ab_code; $base.ab.json.runs); confirming against the history" >&2
      fi
    fi
    if [ "${#confirm[@]}" -eq 0 ]; then
      # shellcheck disable=SC2086
      "$opbench" run --from "$out" "${cases[@]}" $new_libraries --isolate --output "$base.confirm.json" ${OPBENCH_CONFIRM_ARGS:-}
      [ -f "$base.confirm.json" ] && confirm=(--confirm "$base.confirm.json")
    fi
  fi
  # shellcheck disable=SC2086
  "$opbench" compare --history "$db" "$out" "${look[@]}" "${confirm[@]}" --format json --output "$base.gate.json" ${OPBENCH_GATE_ARGS:-}
  # shellcheck disable=SC2086
  "$opbench" compare --history "$db" "$out" "${look[@]}" "${confirm[@]}" --format md --output "$base.gate.md" ${OPBENCH_GATE_ARGS:-}
  gate_code=$?
  # shellcheck disable=SC2086
  "$opbench" compare --history "$db" "$out" "${look[@]}" "${confirm[@]}" --format junit --output "$base.gate.junit.xml" ${OPBENCH_GATE_ARGS:-} >/dev/null
  echo "nightly: judged $out against $db (exit $gate_code); report: $base.gate.md, JUnit: $base.gate.junit.xml" >&2
  gate_report=(--gate "$base.gate.json")
  [ -f "$base.gate.json" ] || gate_report=()
else
  "$opbench" export --input "$out" --format md --output "$base.md"
  echo "nightly: no history yet at $db: this night starts it; report: $base.md" >&2
  gate_report=()
fi

"$opbench" history add --db "$db" "$out" --label "${OPBENCH_LABEL:-}" "${gate_report[@]}" >/dev/null || exit 2
if [ "${#gate_report[@]}" -eq 0 ]; then
  # No verdict tonight (the history starts): the JUnit says so per case, and fails the cases that
  # failed tonight, from the history this night started.
  "$opbench" compare --history "$db" "$out" --format junit --output "$base.gate.junit.xml" ${OPBENCH_GATE_ARGS:-} >/dev/null
  echo "nightly: JUnit: $base.gate.junit.xml" >&2
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  { [ -f "$base.gate.md" ] && cat "$base.gate.md" || cat "$base.md"; } >>"$GITHUB_STEP_SUMMARY" 2>/dev/null ||
    echo "nightly: could not append to \$GITHUB_STEP_SUMMARY ($GITHUB_STEP_SUMMARY)" >&2
fi
if [ "$gate_code" -eq 4 ]; then
  echo "nightly: no confirmed slow-down, but some case's call takes more memory than the last night that probed it (exit 4; $base.gate.md)" >&2
  exit 4
fi
[ "$gate_code" -ge 2 ] && exit "$gate_code"
[ "$gate_code" -eq 1 ] || [ "$run_code" -eq 1 ] && exit 1
# A good night: this build is the next night's previous build.
if [ "${OPBENCH_KEEP_PREVIOUS:-1}" != 0 ]; then
  cp "$opbench" "$previous.tmp" && mv "$previous.tmp" "$previous" || echo "nightly: could not keep $opbench as $previous" >&2
fi
exit 0
