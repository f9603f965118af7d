#!/usr/bin/env bash
# Fault injection (issue #47): replays the probes that found opbench's data-loss, crash and
# wrong-verdict defects against a build, and prints one line per probe: "probe | expected | got |
# ok/FAIL". Full disks (a small tmpfs; skipped where tmpfs cannot be mounted), signals to the
# parent of --processes and to its group, concurrent outputs, shards measured differently, a
# 0-byte and a read-only history, hostile JSON and option values. Exit 1 when a probe fails.
# docs/hostile-input.md is the contract these check.
#   bench/faults.sh [OPBENCH]          (OPBENCH: default build/src/opbench; scripts/ci.sh runs it)
set -uo pipefail
cd "$(dirname "$0")/.."
opbench="$(realpath "${1:-${OPBENCH:-build/src/opbench}}")"
[ -x "$opbench" ] || { echo "faults.sh: no opbench binary at $opbench" >&2; exit 2; }
work="$(mktemp -d /tmp/opbench-faults-XXXXXX)"
mounted=()
cleanup() {
  for m in "${mounted[@]}"; do umount "$m" 2>/dev/null; done
  pkill -KILL -f "$work" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
# Every temp folder opbench makes goes here, so a probe can tell whether one was left behind.
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
export OPBENCH_PEAKS="$work/no-peaks.json"
quick=(--shape-class small --min-time 0.002 --max-time 0.01 --runs 3 --warmup 1 --process-warmup 0 --no-memory)
# Long enough to be interrupted: every case takes at least half a second per repetition.
slow=(--ops add,mul,sub,div,relu,sigmoid,tanh,exp --shape-class common --min-time 0.5 --max-time 0.5 --no-memory)

failed=0
printf '| probe | expected | got | |\n|---|---|---|---|\n'
report() { # probe expected got ok(0/1)
  local mark=ok
  [ "$4" = 0 ] || { mark=FAIL; failed=1; }
  printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$mark"
}
# rc and the first line of stderr of a command, as "rc N: message".
outcome() { # outfile errfile rc
  printf 'rc %s: %s' "$3" "$(grep -v '^Run with --help' "$2" | head -1 | cut -c1-110)"
}
# Waits until FILE has at least N lines (or 60 s).
wait_lines() {
  for _ in $(seq 600); do
    [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}
expect_rc_and_text() { # probe expected rc text -- command...
  local probe="$1" expected="$2" want_rc="$3" want_text="$4"
  shift 5
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  local got
  got="$(outcome "$work/out" "$work/err" "$rc")"
  [ "$rc" = "$want_rc" ] && { [ -z "$want_text" ] || grep -q -- "$want_text" "$work/err"; }
  passed=$?
  report "$probe" "$expected" "$got" $passed
}

# --- 1. A rerun with the same --output keeps an interrupted run's journal ---
# (SIGTERM: a background job of a script starts with SIGINT ignored, as the shell sets it.)
d="$work/p1"; mkdir -p "$d"
"$opbench" run "${slow[@]}" --processes 1 --repetitions 2 -o "$d/x.json" >/dev/null 2>"$d/err" &
pid=$!
wait_lines "$d/x.json.journal.jsonl" 3
kill -TERM $pid; wait $pid 2>/dev/null
lines=$(wc -l <"$d/x.json.journal.jsonl" 2>/dev/null || echo 0)
"$opbench" run --ops add "${quick[@]}" --processes 1 --repetitions 1 -o "$d/x.json" >/dev/null 2>"$d/err2"
kept=$(ls "$d"/x.json.interrupted-*.journal.jsonl 2>/dev/null | head -1)
kept_lines=$( [ -n "$kept" ] && wc -l <"$kept" || echo 0)
[ "$lines" -ge 3 ] && [ "$kept_lines" = "$lines" ] && "$opbench" export --input "$kept" --format csv >/dev/null 2>&1
passed=$?
report "rerun after SIGTERM, same -o" "old journal kept whole under a new name" "journal $lines lines; kept $(basename "${kept:-none}") with $kept_lines" $passed

# --- 2. Deeply nested JSON: an error naming the file, never a crash ---
python3 -c "
n = 100000
d = '[' * n + ']' * n
open('$work/deep.json', 'w').write('{\"schema_version\": ' + d + ', \"cases\": []}')
open('$work/deep-config.json', 'w').write('{\"operators\": ' + d + '}')
"
expect_rc_and_text "merge of a 100,000-deep JSON" "rc 2, names the file" 2 "deep.json: JSON nested deeper" -- "$opbench" merge "$work/deep.json" "$work/deep.json" -o "$work/m.json"
expect_rc_and_text "run --from a 100,000-deep JSON" "rc 2, names the file" 2 "deep.json: JSON nested deeper" -- "$opbench" run --from "$work/deep.json" --dry-run
expect_rc_and_text "run --config a 100,000-deep JSON" "rc 2, names the file" 2 "deep-config.json: JSON nested deeper" -- "$opbench" run --config "$work/deep-config.json" --dry-run
expect_rc_and_text "history add a 100,000-deep JSON" "rc 2, names the file" 2 "deep.json: JSON nested deeper" -- "$opbench" history add --db "$work/deep.sqlite" "$work/deep.json"

# --- 3. merge refuses shards measured differently ---
d="$work/p3"; mkdir -p "$d"
"$opbench" run --ops add,mul "${quick[@]}" --processes 1 --repetitions 2 --shard 0/2 -o "$d/s0.json" >/dev/null 2>&1
"$opbench" run --ops add,mul "${quick[@]}" --processes 1 --repetitions 3 --shard 1/2 -o "$d/s1.json" >/dev/null 2>&1
expect_rc_and_text "merge of shards with --repetitions 2 and 3" "rc 2, names the setting and files" 2 "s1.json: measured differently from .*s0.json (repetitions 3 vs 2" -- "$opbench" merge "$d/s0.json" "$d/s1.json" -o "$d/all.json"
"$opbench" run --ops add,mul "${quick[@]}" --processes 1 --repetitions 2 --shard 1/2 -o "$d/s1b.json" >/dev/null 2>&1
expect_rc_and_text "merge of shards measured alike" "rc 0" 0 "" -- "$opbench" merge "$d/s0.json" "$d/s1b.json" -o "$d/all.json"

# --- 4. Two runs with the same --output at once ---
d="$work/p4"; mkdir -p "$d"
"$opbench" run "${slow[@]}" --processes 1 --repetitions 1 -o "$d/x.json" >/dev/null 2>&1 &
pid=$!
wait_lines "$d/x.json.journal.jsonl" 1
expect_rc_and_text "a second run with the same -o while the first runs" "rc 2, refused naming the journal" 2 "another opbench run is writing to this output" -- "$opbench" run --ops add "${quick[@]}" --processes 1 -o "$d/x.json"
kill -TERM $pid; wait $pid 2>/dev/null
"$opbench" export --input "$d/x.json.journal.jsonl" --format csv >/dev/null 2>&1
rc=$?
report "the first run's journal after that" "readable" "$([ $rc = 0 ] && echo readable || echo unreadable)" $rc

# --- 5. Signals to the parent of --processes 3, and to its group ---
for how in parent group; do
  d="$work/p5-$how"; mkdir -p "$d"
  before=$(ls "$TMPDIR" | wc -l)
  setsid "$opbench" run "${slow[@]}" --processes 3 --repetitions 3 -o "$d/x.json" >/dev/null 2>"$d/err" &
  pid=$!
  child=""
  for _ in $(seq 600); do
    child=$(pgrep -P $pid -f "opbench" | head -1)
    [ -n "$child" ] && [ -n "$(ls "$TMPDIR"/opbench-run-*/process-1.json.journal.jsonl 2>/dev/null)" ] \
      && [ "$(cat "$TMPDIR"/opbench-run-*/process-1.json.journal.jsonl | wc -l)" -ge 2 ] && break
    sleep 0.1
  done
  if [ "$how" = parent ]; then kill -TERM $pid; else kill -INT -- -$pid; fi
  wait $pid 2>/dev/null; rc=$?
  sleep 0.5
  alive=$( [ -n "$child" ] && kill -0 "$child" 2>/dev/null && echo yes || echo no)
  reps=$(grep -c '"repetition"' "$d/x.json.journal.jsonl" 2>/dev/null || true)
  reps=${reps:-0}
  left=$(( $(ls "$TMPDIR" | wc -l) - before ))
  want=$([ "$how" = parent ] && echo 143 || echo 130)
  [ -n "$child" ] && [ "$alive" = no ] && [ "$reps" -ge 1 ] && [ "$left" = 0 ] && [ "$rc" = "$want" ]
  passed=$?
  report "SIG$([ "$how" = parent ] && echo TERM || echo INT) to the $how of --processes 3" "rc $want, child gone, its repetitions journalled, temp folder removed" "rc $rc, child alive: $alive, $reps repetition line(s), $left temp folder(s) left" $passed
done

# --- 6. An empty history is an error, not a new one ---
d="$work/p6"; mkdir -p "$d"
"$opbench" run --ops add "${quick[@]}" --processes 1 --repetitions 2 -o "$d/night.json" >/dev/null 2>&1
: >"$d/empty.sqlite"
expect_rc_and_text "compare --history on a 0-byte history" "rc 2, says it is empty" 2 "an empty file (0 bytes)" -- "$opbench" compare --history "$d/empty.sqlite" "$d/night.json"
expect_rc_and_text "history add to a 0-byte history" "rc 2, says it is empty" 2 "an empty file (0 bytes)" -- "$opbench" history add --db "$d/empty.sqlite" "$d/night.json"
expect_rc_and_text "history show --db a typo" "rc 2, no history there; nothing created" 2 "no history here" -- "$opbench" history show --db "$d/typo.sqlite"
[ ! -e "$d/typo.sqlite" ]
passed=$?
report "after history show --db a typo" "no file created" "$( [ -e "$d/typo.sqlite" ] && echo created || echo none)" $passed
OPBENCH="$opbench" OPBENCH_NIGHTLY_DIR="$d/nightly" scripts/nightly.sh --ops add "${quick[@]}" --processes 1 --repetitions 2 >/dev/null 2>&1
rc=$?
[ $rc = 0 ] && [ -s "$d/nightly/history.sqlite" ]
passed=$?
report "scripts/nightly.sh's first night (no history)" "rc 0, the history started" "rc $rc, history: $([ -s "$d/nightly/history.sqlite" ] && echo started || echo none)" $passed
mkdir -p "$d/nightly2"; : >"$d/nightly2/history.sqlite"
OPBENCH="$opbench" OPBENCH_NIGHTLY_DIR="$d/nightly2" scripts/nightly.sh --ops add "${quick[@]}" --processes 1 --repetitions 2 >/dev/null 2>"$d/nerr"
rc=$?
[ $rc = 2 ] && grep -q "an empty file (0 bytes)" "$d/nerr"
passed=$?
report "scripts/nightly.sh on a 0-byte history" "rc 2, says the history is empty" "rc $rc: $(grep -m1 '0 bytes\|nightly:' "$d/nerr" | cut -c1-110)" $passed

# --- 7. Reading a history needs no write access (read-only file system) ---
if mkdir -p "$work/ro" && mount -t tmpfs -o size=8m tmpfs "$work/ro" 2>/dev/null; then
  mounted+=("$work/ro")
  "$opbench" history add --db "$work/ro/h.sqlite" "$d/night.json" >/dev/null 2>&1
  mount -o remount,ro "$work/ro"
  expect_rc_and_text "history show on a read-only file system" "rc 0" 0 "" -- "$opbench" history show --db "$work/ro/h.sqlite"
  expect_rc_and_text "compare --history on a read-only file system" "rc 0" 0 "" -- "$opbench" compare --history "$work/ro/h.sqlite" "$d/night.json"
  expect_rc_and_text "export --history on a read-only file system" "rc 0" 0 "" -- "$opbench" export --input "$d/night.json" --format html --history "$work/ro/h.sqlite" -o "$d/r.html"
else
  report "read-only history probes" "run" "skipped: cannot mount a tmpfs here" 0
fi

# --- 8. NaN, infinities and unbounded values are refused at once ---
for args in "--min-time nan" "--block-time nan" "--max-time inf" "--threads 100000" "--seed -1" \
  "--seed 18446744073709551616" "--seed 1e23" "--repetitions 0" "--processes 0"; do
  # shellcheck disable=SC2086
  timeout 10 "$opbench" run --ops add --shape-class small $args --dry-run >/dev/null 2>"$work/err"
  rc=$?
  line="$(head -1 "$work/err")"
  msg="$(cut -c1-90 <<<"$line")"
  [ $rc = 2 ] && [ ${#line} -lt 120 ]
  passed=$?
  report "run $args" "rc 2 at once, the range in one short line" "rc $rc: $msg" $passed
done
expect_rc_and_text "compare --alpha nan" "rc 2" 2 "must be a number from 0 to 1" -- "$opbench" compare --alpha nan "$d/night.json" "$d/night.json"

# --- 9. Failures noticed early, explained, and nothing replaced without a word ---
if mkdir -p "$work/full" && mount -t tmpfs -o size=512k tmpfs "$work/full" 2>/dev/null; then
  mounted+=("$work/full")
  cp "$d/night.json" "$work/full/old.json"
  dd if=/dev/zero of="$work/full/filler" bs=4k 2>/dev/null
  start=$SECONDS
  "$opbench" run "${slow[@]}" --processes 3 --repetitions 3 -o "$work/full/x.json" >/dev/null 2>"$work/err"
  rc=$?
  took=$((SECONDS - start))
  [ $rc = 2 ] && grep -q "No space left on device" "$work/err" && [ $took -lt 10 ]
  passed=$?
  report "run --processes 3 onto a full disk" "rc 2 before measuring, says No space left on device" "$(outcome /dev/null "$work/err" $rc) (${took} s)" $passed
  expect_rc_and_text "merge onto a full disk" "rc 2, No space left on device" 2 "No space left on device" -- "$opbench" merge "$d/night.json" -o "$work/full/old.json"
  [ -z "$(ls "$work/full" | grep '\.tmp\.')" ] && cmp -s "$d/night.json" "$work/full/old.json"
  passed=$?
  report "after that" "old file intact, no temp file left" "$(ls "$work/full" | tr '\n' ' ')" $passed
else
  report "full-disk probes" "run" "skipped: cannot mount a tmpfs here" 0
fi
mkdir -p "$work/adir"
start=$SECONDS
expect_rc_and_text "run -o an existing directory" "rc 2 before measuring" 2 "is a directory" -- "$opbench" run "${slow[@]}" --processes 1 --repetitions 1 -o "$work/adir"
cp "$d/night.json" "$work/from.json"
id=$("$opbench" run --from "$work/from.json" --dry-run 2>/dev/null | head -1)
expect_rc_and_text "run --from X --case ID -o X" "rc 2, X untouched" 2 "is the --from file" -- "$opbench" run --from "$work/from.json" --case "$id" -o "$work/from.json"
cp "$d/night.json" "$work/locked.json"; chmod 0444 "$work/locked.json"
expect_rc_and_text "run -o a read-only (0444) result" "rc 2, not replaced" 2 "a read-only result file" -- "$opbench" run --ops add "${quick[@]}" -o "$work/locked.json"

# --- 10. Messages name the file and say what was expected ---
python3 -c "
import json
r = json.load(open('$d/night.json'))
r['context'] = [1, 2]
json.dump(r, open('$work/badctx.json', 'w'))
"
expect_rc_and_text "merge of a result whose context is a list" "rc 2, names the file and the field" 2 "badctx.json: 'context' must be an object" -- "$opbench" merge "$work/badctx.json" -o "$work/m2.json"
expect_rc_and_text "run --ctx gpu99999999999999999999" "rc 2, says which device" 2 "no such device index" -- "$opbench" run --ops add --ctx gpu99999999999999999999 --dry-run
expect_rc_and_text "run --peaks /tmp" "rc 2, names the path and the reason" 2 "/tmp: cannot read (Is a directory)" -- "$opbench" run --ops add "${quick[@]}" --processes 1 --peaks /tmp -o "$work/pk.json"

echo
left=$(ls "$TMPDIR" | wc -l)
report "temp folders left by all probes" "0" "$left" "$([ "$left" = 0 ] && echo 0 || echo 1)"
exit $failed
