#!/usr/bin/env bash
# scripts/nightly-slurm.sh against a running Slurm (tests/slurm/cluster.sh: a single-host cluster
# started and stopped here). Nights of a small suite, each as a 3-shard job array and its
# finishing job:
#   1. a whole night: the merged file holds every planned case once, the gate report exists, the
#      night is in the history;
#   2. a shard cancelled (scancel): the finishing job names it, keeps the others merged apart,
#      exits 3, adds nothing to the history;
#   3. a shard requeued while it runs (scontrol requeue): measured again, its file written once;
#      a task requeued after its file was written leaves the file as it is;
#   4. two nights submitted at once: both end in the history;
#   5. shards from another CPU model: merge refuses, naming the nodes; nothing added.
# Usage: test_nightly_slurm.sh OPBENCH REPO. Outside CI without root or Slurm it is skipped (77).
set -euo pipefail
opbench="$(realpath "${1:?usage: $0 OPBENCH REPO}")"
repo="$(cd "${2:?usage: $0 OPBENCH REPO}" && pwd)"

skip() {
  if [ "${CI:-}" = true ]; then
    echo "FAIL: $1 (CI installs Slurm and runs as root: scripts/setup.sh)" >&2
    exit 1
  fi
  echo "SKIP: $1" >&2
  exit 77
}
[ "$(id -u)" -eq 0 ] || skip "starting slurmd needs root"
for tool in munged slurmctld slurmd sbatch; do
  command -v "$tool" >/dev/null || skip "$tool not installed (apt-get install slurmctld slurmd slurm-client munge)"
done

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

tmp="$(mktemp -d)"
cleanup() {
  bash "$repo/tests/slurm/cluster.sh" stop "$tmp/cluster" || true
  if [ "${OPBENCH_KEEP_TEST_DIR:-0}" = 1 ]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
eval "$(bash "$repo/tests/slurm/cluster.sh" start "$tmp/cluster")"

export OPBENCH="$opbench"
export OPBENCH_NIGHTLY_DIR="$tmp/nights"
export OPBENCH_HISTORY="$tmp/nights/history.sqlite"
export OPBENCH_SHARD_WAIT=2
export OPBENCH_KEEP_PREVIOUS=0
mkdir -p "$OPBENCH_NIGHTLY_DIR"
# The nights measure briefly (they test the scheduling, not the numbers); the requeued night's
# 0.3 s a case at least makes a shard last long enough to be caught running (about 2 s).
suite=(--config "$repo/tests/data/slurm-suite.csv" --repetitions 1 --runs 3 --min-time 0.02
  --max-time 0.02 --warmup 1)
slow_suite=(--config "$repo/tests/data/slurm-suite.csv" --repetitions 1 --runs 3 --min-time 0.3
  --max-time 0.3 --warmup 1)
nightly="$repo/scripts/nightly-slurm.sh"

# Case ids of a result file, one a line, sorted (duplicates kept).
ids() { python3 -c 'import json,sys; [print(c["case_id"]) for c in json.load(open(sys.argv[1]))["cases"]]' "$1" | sort; }
runs_in_history() { "$opbench" history show --db "$OPBENCH_HISTORY" --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["runs"]))'; }
# Submits a night held (--hold), so that the test acts on its jobs before any runs; prints
# "NIGHT ARRAY FINISH". `submit_held slow` measures 0.3 s a case.
submit_held() {
  local err night
  local -a options=("${suite[@]}")
  [ "${1:-}" != slow ] || options=("${slow_suite[@]}")
  err="$(mktemp)"
  night="$("$nightly" --shards 3 --hold -- "${options[@]}" 2>"$err")" || { cat "$err" >&2; fail "submission failed"; }
  local array finish
  array="$(sed -n 's/.*in job array \([0-9]*\).*/\1/p' "$err")"
  finish="$(sed -n 's/.* in job \([0-9]*\) (after.*/\1/p' "$err")"
  [ -n "$array" ] && [ -n "$finish" ] || { cat "$err" >&2; fail "no job ids in the submission's output"; }
  echo "$night $array $finish"
}
wait_outcome() {
  for _ in $(seq 1 600); do
    [ -s "$1/outcome" ] && return 0
    sleep 0.5
  done
  tail -n 30 "$1"/slurm-*.out >&2 || true
  fail "night $1 did not end within 5 minutes"
}
outcome_code() { cut -d' ' -f1 "$1/outcome"; }

# The history's first night, from one machine: the gate has something to judge against.
"$opbench" run "${suite[@]}" --output "$tmp/plan.json" >/dev/null 2>&1 || true
[ -f "$tmp/plan.json" ] || fail "the suite did not run on this machine"
"$opbench" history add --db "$OPBENCH_HISTORY" "$tmp/plan.json" >/dev/null
planned="$(ids "$tmp/plan.json")"
[ "$(echo "$planned" | wc -l)" -ge 6 ] || fail "the suite has too few cases for three shards"

echo "== 1. a whole night"
night="$("$nightly" --shards 3 --wait -- "${suite[@]}")" || fail "the night exited $? ($(cat "$night/outcome" 2>/dev/null))"
[ "$(outcome_code "$night")" = 0 ] || fail "outcome: $(cat "$night/outcome")"
[ "$(ids "$night/night.json")" = "$planned" ] || fail "night.json does not hold every planned case once"
[ -s "$night/night.gate.md" ] || fail "no gate report in $night"
[ "$(runs_in_history)" = 2 ] || fail "the night is not in the history"
for i in 0 1 2; do [ -s "$night/shard-$i-of-3.json" ] || fail "no shard $i"; done

echo "== 2. a shard cancelled"
read -r night array finish <<<"$(submit_held)"
scancel "${array}_1"
scontrol release "$array" "$finish" >/dev/null
wait_outcome "$night"
[ "$(outcome_code "$night")" = 3 ] || fail "outcome: $(cat "$night/outcome")"
grep -q "shard(s) 1 of 3" "$night/outcome" || fail "the outcome does not name shard 1: $(cat "$night/outcome")"
[ ! -e "$night/night.json" ] || fail "a partial night was merged as a whole one"
expected="$(cat <(ids "$night/shard-0-of-3.json") <(ids "$night/shard-2-of-3.json") | sort)"
[ "$(ids "$night/night.partial.json")" = "$expected" ] || fail "night.partial.json is not the finished shards"
[ "$(runs_in_history)" = 2 ] || fail "a partial night was added to the history"

echo "== 3. a shard requeued while it runs"
read -r night array finish <<<"$(submit_held slow)"
scontrol release "$array" >/dev/null
journal="$night/shard-0-of-3.json.journal.jsonl"
for _ in $(seq 1 300); do
  [ -f "$journal" ] && [ "$(wc -l <"$journal")" -ge 2 ] && break
  sleep 0.1
done
[ "$(wc -l <"$journal" 2>/dev/null || echo 0)" -ge 2 ] || fail "shard 0 journalled no case within 30 s"
scontrol requeue "${array}_0"
# Slurm holds a requeued job back for two minutes before it may start again; here, once it is
# pending again, it may start at once.
for _ in $(seq 1 100); do
  [ "$(squeue -h -j "${array}_0" -o %T 2>/dev/null)" = PENDING ] &&
    scontrol update JobId="${array}_0" StartTime=now >/dev/null 2>&1 && break
  sleep 0.1
done
scontrol release "$finish" >/dev/null
wait_outcome "$night"
[ "$(outcome_code "$night")" = 0 ] || fail "outcome: $(cat "$night/outcome")"
grep -q "restart 1" "$night/slurm-shard-0.out" || fail "shard 0 did not run again: $(cat "$night/slurm-shard-0.out")"
ls "$night"/shard-0-of-3.json.interrupted-*.journal.jsonl >/dev/null 2>&1 ||
  fail "the interrupted attempt's journal was not kept"
[ "$(ids "$night/night.json")" = "$planned" ] || fail "after a requeue night.json does not hold every case once"
[ "$(runs_in_history)" = 3 ] || fail "the requeued night is not in the history"
before="$(sha256sum <"$night/shard-0-of-3.json")"
SLURM_ARRAY_TASK_ID=0 SLURM_RESTART_COUNT=2 "$nightly" shard "$night" 3 -- "${slow_suite[@]}" |
  grep -q "not measured twice" || fail "a task requeued after it finished measured again"
[ "$(sha256sum <"$night/shard-0-of-3.json")" = "$before" ] || fail "shard 0's file was written twice"

echo "== 4. two nights at once"
read -r night_a array_a finish_a <<<"$(submit_held)"
read -r night_b array_b finish_b <<<"$(submit_held)"
scontrol release "$array_a" "$array_b" "$finish_a" "$finish_b" >/dev/null
wait_outcome "$night_a"
wait_outcome "$night_b"
[ "$(outcome_code "$night_a")" = 0 ] && [ "$(outcome_code "$night_b")" = 0 ] ||
  fail "outcomes: $(cat "$night_a/outcome") / $(cat "$night_b/outcome")"
[ "$(runs_in_history)" = 5 ] || fail "two nights at once: $(runs_in_history) runs in the history, expected 5"

echo "== 5. shards from another CPU model"
mixed="$tmp/nights/mixed"
mkdir -p "$mixed"
cp "$night_a"/shard-*-of-3.json "$mixed/"
python3 - "$mixed/shard-1-of-3.json" <<'PY'
import json, sys
path = sys.argv[1]
data = json.load(open(path))
data["context"]["cpu_model"] = "Another CPU @ 2.0GHz"
data["context"]["host"] = "node-b"
json.dump(data, open(path, "w"))
PY
set +e
OPBENCH_REPO="$repo" "$nightly" finish "$mixed" 3 -- "${suite[@]}" 2>"$mixed/err"
code=$?
set -e
[ "$code" = 2 ] || fail "mixed CPU models: exit $code"
grep -q "node-b" "$mixed/err" || fail "the refusal does not name the nodes: $(cat "$mixed/err")"
[ "$(runs_in_history)" = 5 ] || fail "a refused night was added to the history"
echo "PASS: nightly-slurm.sh against a running Slurm"
