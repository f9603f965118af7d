#!/usr/bin/env bash
# Fault injection (issues #47, #59): replays the probes that found opbench's data-loss, crash and
# wrong-verdict defects against a build, and prints one line per probe: "probe | expected | got |
# ok/FAIL". Full disks (a small tmpfs; skipped where tmpfs cannot be mounted), signals to the
# parent of --processes and to its group, concurrent outputs, shards measured differently, a
# 0-byte and a read-only history, hostile JSON and option values; users' kernels that crash, hang,
# exit, lie or override ATen's (tests/data/libs/), hostile axes, ids, files and reasons, the gate
# over a regression and its fix, nightly-slurm.sh against an sbatch that refuses. Exit 1 when a
# probe fails.
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
    [ -n "$child" ] && [ -n "$(ls "$TMPDIR"/opbench-run-*/process-1-*.json.journal.jsonl 2>/dev/null)" ] \
      && [ "$(cat "$TMPDIR"/opbench-run-*/process-1-*.json.journal.jsonl | wc -l)" -ge 2 ] && break
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

# --- 11. Code users bring crashes, hangs and lies (issue #59) ---
# The test libraries (tests/data/libs/): kernels that segfault, abort, exit, hang, lie; one that
# overrides ATen's relu. Built beside the binary (build/tests/).
libs="$(dirname "$opbench")/../tests"
faulty="$libs/libopbench_test_faulty.so"
override="$libs/libopbench_test_override.so"
fast=(--threads 1 --warmup 1 --runs 3 --min-time 0 --max-time 0.02 --block-time 0.0001 --process-warmup 0)
if [ -f "$faulty" ] && [ -f "$override" ]; then
  d="$work/p11"; mkdir -p "$d"
  # A segfaulting kernel beside a wrong one, a right one and ATen's cases, default processes and
  # repetitions: only the crashing case fails, naming SIGSEGV; the wrong one fails its check.
  # Every case in every process (--interval-target 0): a case known early would have 4.
  "$opbench" run --load-library "$faulty" --config tests/data/faulty_softmax.json "${fast[@]}" --interval-target 0 -o "$d/f.json" >/dev/null 2>"$d/err"
  rc=$?
  got="$(python3 - "$d/f.json" <<'PY' 2>&1
import json, sys
cases = json.load(open(sys.argv[1]))['cases']
bad = []
for c in cases:
    i, s, m = c['case_id'], c['status'], c['message']
    if i.startswith('faulty::softmax_segv_large/self=512x1024'):
        ok = s == 'error' and m.startswith('SIGSEGV in ')
    elif i.startswith('faulty::softmax_wrong'):
        ok = s == 'error' and 'its outputs differ from the baseline' in m
    else:
        ok = s == 'ok' and c['estimate']['repetitions'] == 6 and m == ''
    if not ok:
        bad.append('%s %s (%s)' % (i.split('/')[0], s, m[:50]))
print('%d of %d cases as they should be%s' % (len(cases) - len(bad), len(cases), ('; ' + '; '.join(bad[:2])) if bad else ''))
sys.exit(1 if bad or len(cases) != 12 else 0)
PY
)"
  passed=$?
  [ "$rc" = 1 ] || passed=1
  report "a segfaulting kernel among 12 cases, defaults" "rc 1; only it fails (SIGSEGV), the wrong one fails its check, 9 ok with 6 of 6 repetitions" "rc $rc, $got" $passed
  # Implementations that lie: wrong, crashing, right until its inputs change at the same
  # addresses (it caches by address). No speedup for any of them.
  printf '{"variants": [{"name": "row_softmax", "implementations": [{"op": "softmax", "args": {"dim": -1}}, {"op": "faulty::softmax_by_address"}, {"op": "faulty::softmax_wrong"}, {"op": "faulty::softmax_segv_large"}], "cases": [{"args": {"self": "512x1024"}}]}]}' >"$d/lies.json"
  "$opbench" run --load-library "$faulty" --config "$d/lies.json" "${fast[@]}" -o "$d/lies-out.json" >/dev/null 2>&1
  "$opbench" export --input "$d/lies-out.json" --format variants >"$d/variants.md" 2>&1
  rows=$(grep -c '^| row_softmax | `' "$d/variants.md")
  speedups=$(grep '^| row_softmax | `' "$d/variants.md" | grep -c '| x[0-9]')
  [ "$rows" = 3 ] && [ "$speedups" = 0 ]
  passed=$?
  report "export --format variants of kernels that lie" "no speedup for the wrong, the crashing or the address-caching kernel" "$speedups speedup(s) in their $rows row(s)" $passed
  # A kernel that never returns: a timeout, named; the others measured.
  printf '{"operators": [{"op": "faulty::softmax_hang_large", "cases": [{"args": {"self": "64x64"}}, {"args": {"self": "512x1024"}}]}]}' >"$d/hang.json"
  start=$SECONDS
  timeout 120 "$opbench" run --load-library "$faulty" --config "$d/hang.json" "${fast[@]}" --processes 1 --repetitions 2 --case-timeout 2 -o "$d/h.json" >/dev/null 2>"$d/err"
  rc=$?
  status=$(python3 -c "import json,sys; print(' '.join(c['status'] for c in json.load(open(sys.argv[1]))['cases']))" "$d/h.json" 2>/dev/null)
  [ "$rc" = 1 ] && [ "$status" = "ok timeout" ] && grep -q "past the 2 s limit" "$d/h.json"
  passed=$?
  report "a kernel that never returns, --case-timeout 2" "rc 1: that case timeout, the other ok" "rc $rc after $((SECONDS - start)) s: ${status:-no result}" $passed
  # --isolate: the message names the signal and no temp file.
  printf '{"operators": [{"op": "faulty::softmax_segv_large", "cases": [{"args": {"self": "512x1024"}}]}]}' >"$d/segv.json"
  "$opbench" run --load-library "$faulty" --config "$d/segv.json" "${fast[@]}" --isolate --repetitions 1 -o "$d/i.json" >/dev/null 2>"$d/err"
  msg=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cases'][0]['message'])" "$d/i.json" 2>/dev/null)
  grep -q "SIGSEGV in " <<<"$msg" && ! grep -q "/tmp/\|opbench-run-" <<<"$msg"
  passed=$?
  report "--isolate, a segfaulting kernel" "its message names SIGSEGV and the phase, no temp path" "$(cut -c1-90 <<<"${msg:-no result}")" $passed
  # E1: a library whose initialiser ends the process.
  for how in exit0 _exit3; do
    OPBENCH_FAULTY_INIT=$how "$opbench" run --load-library "$faulty" --ops relu --shape-class small "${fast[@]}" -o "$d/e1.json" >/dev/null 2>"$d/err"
    rc=$?
    [ "$rc" = 2 ] && grep -q "its initialiser ended the process" "$d/err"
    passed=$?
    report "E1 a library whose initialiser calls ${how/0/(0)}" "rc 2, says its initialiser ended the process" "$(outcome /dev/null "$d/err" $rc)" $passed
  done
  # E4: a result file names a library: --from does not load it unasked.
  OPBENCH_FAULTY_INIT=exit0 "$opbench" run --from "$d/f.json" --dry-run >/dev/null 2>"$d/err"
  rc=$?
  [ "$rc" = 2 ] && grep -q "which is not loaded" "$d/err"
  passed=$?
  report "E4 run --from a result naming a library, --dry-run" "rc 2 naming the library, nothing loaded" "$(outcome /dev/null "$d/err" $rc)" $passed
  # E15: a library that overrides ATen's relu is recorded.
  "$opbench" run --load-library "$override" --ops relu --shape-class small "${fast[@]}" --processes 1 --repetitions 1 -o "$d/o.json" >/dev/null 2>"$d/err"
  got=$(python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); c=d['cases'][0]
print('library %s; overrides %s' % ('set' if c.get('library') else 'none', d['context']['libraries'][0].get('overrides')))" "$d/o.json" 2>/dev/null)
  grep -q "library set; overrides \['aten::relu (CPU)'\]" <<<"$got"
  passed=$?
  report "E15 a library overriding ATen's relu" "the case records it, the context says what it overrides" "${got:-no result}" $passed
  # E16: a directory or a loop of symbolic links as a library.
  ln -sf loop-b "$d/loop-a"; ln -sf loop-a "$d/loop-b"
  expect_rc_and_text "E16 --load-library a directory" "rc 2, says it is a directory" 2 "a directory, not a shared library" -- "$opbench" list --load-library "$d"
  expect_rc_and_text "E16 --load-library a symlink loop" "rc 2, says so" 2 "a loop of symbolic links" -- "$opbench" list --load-library "$d/loop-a"
  # E19: an operator whose kernel returns an undefined tensor.
  printf '{"operators": [{"op": "faulty::softmax_undefined", "cases": [{"args": {"self": "8x8"}}]}]}' >"$d/undef.json"
  "$opbench" run --load-library "$faulty" --config "$d/undef.json" "${fast[@]}" --processes 1 --repetitions 1 -o "$d/u.json" >/dev/null 2>&1
  got=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['cases'][0]; print(c['status'], c['message'][:70])" "$d/u.json" 2>/dev/null)
  grep -q "^error .*undefined tensor" <<<"$got"
  passed=$?
  report "E19 a kernel returning an undefined tensor" "error, saying so" "${got:-no result}" $passed
else
  report "probes of user kernels (issue #59)" "run" "skipped: no $faulty (build the tests)" 0
fi

d="$work/p12"; mkdir -p "$d"
# E2: an --axis product past the plan's cap is refused at once; a big sweep plans in linear time.
printf '{"operators": [{"op": "add", "cases": [{"dims": {"A": 1, "B": 1, "C": 1}, "args": {"self": "AxBxC", "other": "AxBxC"}}]}]}' >"$d/dims.json"
start=$SECONDS
timeout 60 "$opbench" run --config "$d/dims.json" --axis A=1:10000 --axis B=1:10000 --axis C=1:10000 --dry-run >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 2 ] && [ $((SECONDS - start)) -lt 10 ] && grep -q "plan may hold" "$d/err"
passed=$?
report "E2 --axis of 10^12 points" "rc 2 at once, naming the cap" "$(outcome /dev/null "$d/err" $rc) ($((SECONDS - start)) s)" $passed
start=$SECONDS
timeout 120 "$opbench" run --config "$d/dims.json" --axis A=1:10000 --axis B=1:3 --dry-run >"$d/out" 2>"$d/err"
rc=$?
took=$((SECONDS - start))
[ "$rc" = 0 ] && [ "$(wc -l <"$d/out")" = 30000 ] && [ "$took" -lt 40 ]
passed=$?
report "E2 --dry-run of 3x10^4 points" "rc 0, 30000 ids in well under the 72 s of 2026-11-28" "rc $rc, $(wc -l <"$d/out") ids in $took s" $passed
# E3: a string argument with a line break and an escape: the id stays one printable line.
printf '{"operators": [{"op": "gelu", "cases": [{"args": {"self": "4", "approximate": "no\\nne\\u001b[31m"}}]}]}' >"$d/nl.json"
"$opbench" run --config "$d/nl.json" --dry-run >"$d/out" 2>"$d/err"
rc=$?
[ "$rc" = 0 ] && [ "$(wc -l <"$d/out")" = 1 ] && grep -q 'no\\x0Ane\\x1B\[31m' "$d/out" && ! grep -q $'\x1b' "$d/out"
passed=$?
report "E3 a case id from a string with a line break" "one line, control characters as \\xNN" "rc $rc: $(head -c 80 "$d/out" | tr '\n\033' '|?')" $passed
# E7: a device and a FIFO where a file is expected.
expect_rc_and_text "E7 compare --thresholds /dev/zero" "rc 2 at once, not a regular file" 2 "not a regular file" -- timeout 20 "$opbench" compare --thresholds /dev/zero tests/data/compare/base.json tests/data/compare/base.json
mkfifo "$d/fifo"
expect_rc_and_text "E7 compare --thresholds a FIFO" "rc 2 at once, not a regular file" 2 "not a regular file" -- timeout 20 "$opbench" compare --thresholds "$d/fifo" tests/data/compare/base.json tests/data/compare/base.json
# E18: a threshold rule naming an id with a space.
python3 - "$d" <<'PY'
import json, sys
d = json.load(open('tests/data/compare/base.json'))
d['cases'][0]['case_id'] = 'add/self=16,mode=two words/float32/cpu/t1/forward'
json.dump(d, open(sys.argv[1] + '/spaced.json', 'w'))
open(sys.argv[1] + '/rules.txt', 'w').write('case "add/self=16,mode=two words/float32/cpu/t1/forward" 0.2\n')
PY
expect_rc_and_text "E18 a threshold rule for an id with a space" "rc 0, the rule read" 0 "" -- "$opbench" compare --thresholds "$d/rules.txt" "$d/spaced.json" "$d/spaced.json"
# E20: a key twice in one object of a config.
printf '{"operators": [{"op": "add", "cases": [{"dims": {"A": 2, "A": 3}, "args": {"self": "A", "other": "A"}}]}]}' >"$d/dup.json"
expect_rc_and_text "E20 a key twice in a config's dims" "rc 2, names the key" 2 "the key 'A' twice" -- "$opbench" run --config "$d/dup.json" --dry-run
# E14 / E16: history reasons are one line of text and shown escaped; --run is a run's id.
"$opbench" history add --db "$d/h.sqlite" tests/data/compare/base.json >/dev/null 2>&1
expect_rc_and_text "E16 history accept --reason ' '" "rc 2, a reason must say why" 2 "must say why" -- "$opbench" history accept --db "$d/h.sqlite" --case "add/self=16,other=16/float32/cpu/t1/forward" --reason " "
expect_rc_and_text "E16 history accept a reason with a line break" "rc 2, one line" 2 "control character" -- "$opbench" history accept --db "$d/h.sqlite" --case "add/self=16,other=16/float32/cpu/t1/forward" --reason $'two\nlines'
expect_rc_and_text "E16 history accept --run -1" "rc 2, a run's id" 2 "must be a run's id" -- "$opbench" history accept --db "$d/h.sqlite" --case "add/self=16,other=16/float32/cpu/t1/forward" --reason "x" --run -1
"$opbench" history accept --db "$d/h.sqlite" --case "add/self=16,other=16/float32/cpu/t1/forward" --reason 'a | b <script>' >/dev/null 2>&1
"$opbench" history show --db "$d/h.sqlite" >"$d/show.md" 2>&1
grep -q 'a \\| b &lt;script&gt;' "$d/show.md"
passed=$?
report "E14 an accept reason with | and HTML in history show" "escaped in its table cell" "$(grep -o 'a .*script[^|]*' "$d/show.md" | head -1)" $passed
# Breakdown of a result that holds no calls: an error with the hint.
expect_rc_and_text "export --format breakdown of a run of no calls" "rc 2, says what to run" 2 "holds no calls to break down" -- "$opbench" export --format breakdown --input "$(python3 - "$d" <<'PY'
import json, sys
d = json.load(open('tests/data/compare/base.json'))
for c in d['cases']:
    c['kind'] = 'sample'
p = sys.argv[1] + '/samples.json'
json.dump(d, open(p, 'w'))
print(p)
PY
)"
# Tags are one vocabulary: the catalogue's Broadcast is the configs' broadcast.
a=$("$opbench" run --tags Broadcast --dry-run 2>/dev/null | wc -l)
b=$("$opbench" run --tags broadcast --dry-run 2>/dev/null | wc -l)
[ "$a" = "$b" ] && [ "$a" -gt 43 ]
passed=$?
report "--tags Broadcast and --tags broadcast" "the same cases, samples and operators" "$a and $b case(s)" $passed

# The gate: a confirmed slow-down is held out of the history, and after the fix the gate judges
# as before it; a candidate nothing confirmed and a blind case are never `same`.
d="$work/p13"; mkdir -p "$d"
python3 - "$d" <<'PY'
import json, sys
base = json.load(open('tests/data/compare/base.json'))
def night(name, date, scale):
    n = json.loads(json.dumps(base))
    n['context']['date'] = date
    n['context']['processes'] = 1
    for c in n['cases']:
        f = scale(c['case_id'])
        c['timing']['repetition_medians'] = [m * f for m in c['timing']['repetition_medians']]
    json.dump(n, open(sys.argv[1] + '/' + name, 'w'))
jitter = [1.0, 1.01, 0.99, 1.005, 0.995, 1.002]
for k, j in enumerate(jitter):
    night('n%d.json' % k, '2026-11-0%dT00:00:00Z' % (k + 1), lambda i, j=j: j * (5.0 if i.startswith('relu/') and k % 2 else 1.0))
night('slow.json', '2026-11-08T00:00:00Z', lambda i: 1.3 if i.startswith('mul/') else 1.0)
night('again.json', '2026-11-08T00:00:00Z', lambda i: 1.3 if i.startswith('mul/') else 1.0)
night('fixed.json', '2026-11-09T00:00:00Z', lambda i: 1.0)
PY
for k in 0 1 2 3 4 5; do "$opbench" history add --db "$d/h.sqlite" "$d/n$k.json" >/dev/null 2>&1; done
"$opbench" compare --history "$d/h.sqlite" "$d/slow.json" --format json --output "$d/first.json" >/dev/null 2>&1
"$opbench" compare --history "$d/h.sqlite" "$d/slow.json" --confirm "$d/again.json" --format json --output "$d/gate.json" >/dev/null 2>&1
"$opbench" compare --history "$d/h.sqlite" "$d/slow.json" --confirm "$d/again.json" --format junit --output "$d/gate.xml" >/dev/null 2>&1
"$opbench" history add --db "$d/h.sqlite" "$d/slow.json" --gate "$d/gate.json" >/dev/null 2>&1
"$opbench" compare --history "$d/h.sqlite" "$d/fixed.json" --format json --output "$d/fixed-gate.json" >/dev/null 2>&1
got="$(python3 - "$d" <<'PY'
import json, sys
d = sys.argv[1]
first = {c['case_id'].split('/')[0]: c for c in json.load(open(d + '/first.json'))['cases']}
fixed = {c['case_id'].split('/')[0]: c for c in json.load(open(d + '/fixed-gate.json'))['cases']}
print('unconfirmed mul: %s; blind relu: %s; mul after the fix: %s, %s nights, %s held out' % (
    first['mul']['verdict'], first['relu']['verdict'] if first['relu']['blind'] else 'not blind',
    fixed['mul']['verdict'], fixed['mul']['nights'], fixed['mul'].get('held_out')))
PY
)"
grep -q "unconfirmed mul: unknown; blind relu: unknown; mul after the fix: same, 6 nights, 1 held out" <<<"$got"
passed=$?
report "the gate over a regression and its fix" "candidate and blind unknown; the slow night held out" "$got" $passed
grep -q '<failure type="slower"' "$d/gate.xml"
passed=$?
report "compare --history --confirm --format junit" "the confirmed slow-down a failure" "$(grep -c '<failure' "$d/gate.xml") failure(s)" $passed
if ls "$work"/p6/nightly/*.gate.junit.xml >/dev/null 2>&1; then n=$(ls "$work"/p6/nightly/*.gate.junit.xml | wc -l); else n=0; fi
[ "$n" -ge 1 ]
passed=$?
report "scripts/nightly.sh's first night" "writes the night's JUnit" "$n JUnit file(s)" $passed

# E13: scripts/nightly-slurm.sh against an sbatch that refuses (a stand-in on PATH).
d="$work/p14"; mkdir -p "$d/bin"
cat >"$d/bin/sbatch" <<'SH'
#!/bin/sh
# Accepts the first submission (job 41), refuses the second.
n=$(cat "$(dirname "$0")/count" 2>/dev/null || echo 0); n=$((n + 1)); echo $n >"$(dirname "$0")/count"
if [ "$n" = 1 ]; then echo 41; exit 0; fi
echo "sbatch: error: Batch job submission failed: Invalid dependency" >&2; exit 1
SH
printf '#!/bin/sh\necho "$@" >>"$(dirname "$0")/cancelled"\n' >"$d/bin/scancel"
chmod +x "$d/bin/sbatch" "$d/bin/scancel"
export_slurm=(env PATH="$d/bin:$PATH" OPBENCH="$opbench" OPBENCH_NIGHTLY_DIR="$d/nightly")
"${export_slurm[@]}" scripts/nightly-slurm.sh --shards 7766279631452241919 -- --ops add >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 2 ] && [ -z "$(ls "$d/nightly" 2>/dev/null)" ] && [ ! -f "$d/bin/count" ]
passed=$?
report "E13 nightly-slurm.sh --shards 7766279631452241919" "rc 2, nothing submitted, no night folder" "$(outcome /dev/null "$d/err" $rc)" $passed
"${export_slurm[@]}" scripts/nightly-slurm.sh --shards 2 -- --ops add --output x.json >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 2 ] && [ ! -f "$d/bin/count" ]
passed=$?
report "E13 nightly-slurm.sh with --output in the run arguments" "rc 2 before submitting" "$(outcome /dev/null "$d/err" $rc)" $passed
"${export_slurm[@]}" scripts/nightly-slurm.sh --shards 2 -- --ops add >/dev/null 2>"$d/err"
rc=$?
[ "$rc" = 2 ] && grep -q "^41" "$d/bin/cancelled" 2>/dev/null && [ -z "$(ls "$d/nightly" 2>/dev/null)" ]
passed=$?
report "E13 nightly-slurm.sh, the finishing job refused" "rc 2, the shards' array cancelled, no night folder" "$(outcome /dev/null "$d/err" $rc); cancelled: $(cat "$d/bin/cancelled" 2>/dev/null || echo none)" $passed

echo
left=$(ls "$TMPDIR" | wc -l)
report "temp folders left by all probes" "0" "$left" "$([ "$left" = 0 ] && echo 0 || echo 1)"
exit $failed
