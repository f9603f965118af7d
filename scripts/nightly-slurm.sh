#!/usr/bin/env bash
# The nightly gate (scripts/nightly.sh) on a Slurm cluster (docs/nightly.md#on-a-slurm-cluster):
# the night's cases as a job array of N shards, then one dependent job that merges them, judges
# the night against the history and adds it, as scripts/nightly.sh does on one machine.
#
#   scripts/nightly-slurm.sh [--shards N] [SBATCH OPTIONS] -- [RUN ARGUMENTS]
#
# SBATCH OPTIONS go to both jobs (--partition, --constraint=FEATURE for one node type, --exclusive,
# --time, --account, ...); `--wait` waits for the night's end and exits with its code. RUN
# ARGUMENTS go to every `opbench run` of the night. Prints the night folder and the job ids.
#
# The night folder, NIGHTLY_DIR/night-<UTC date>/ (on storage every node sees), holds:
#   shard-I-of-N.json     shard I's results, written once, atomically, by array task I
#                         (`opbench run --shard I/N`); slurm-shard-I.out its log
#   night.json            the merged shards (`opbench merge`: refused when shards ran on other
#                         CPU models or LibTorch builds, naming the nodes)
#   night.gate.md / .json the gate's report; the second look and the confirmation run in the
#                         finishing job, on its node (slurm-finish.out)
#   outcome               one line: the night's exit code and why
# Faults (docs/nightly.md#faults-on-a-cluster):
#   - a shard that fails or is cancelled: the finishing job names it, merges the shards that
#     finished into night.partial.json (kept, never judged, never added to the history) and
#     exits 3;
#   - a requeued shard (--requeue, preemption) measures again from the start (its interrupted
#     journal kept beside it) and writes its file once; a task requeued after its file was
#     written leaves the file as it is;
#   - two nights at once: each finishing job adds its night to the history; SQLite serialises
#     the writers.
# Exit codes of the night (outcome, and --wait): scripts/nightly.sh's (0, 1, 2, 4), and 3 for
# missing shards.
#
# Environment: as scripts/nightly.sh (OPBENCH, OPBENCH_NIGHTLY_DIR, OPBENCH_HISTORY,
# OPBENCH_LABEL, OPBENCH_GATE_ARGS, ...), read at submission and passed to the jobs;
# OPBENCH_SHARD_WAIT: seconds the finishing job waits for a shard file that shared storage has
# not shown yet (default 30).
set -uo pipefail

usage() {
  echo "usage: $0 [--shards N] [SBATCH OPTIONS] -- [RUN ARGUMENTS]" >&2
  exit 2
}

# The jobs: `shard NIGHT N -- RUN ARGUMENTS` (array task $SLURM_ARRAY_TASK_ID) and
# `finish NIGHT N -- RUN ARGUMENTS`. Slurm runs a copy of this script, so they find the
# repository through OPBENCH_REPO, set at submission.
mode="${1:-}"
if [ "$mode" = shard ] || [ "$mode" = finish ]; then
  night="$2"
  shards="$3"
  [ "${4:-}" = -- ] || usage
  shift 4
  opbench="${OPBENCH:?}"
  if [ "$mode" = shard ]; then
    i="${SLURM_ARRAY_TASK_ID:?not an array task}"
    out="$night/shard-$i-of-$shards.json"
    echo "nightly-slurm: shard $i of $shards on $(hostname) (job ${SLURM_JOB_ID:-?}, restart ${SLURM_RESTART_COUNT:-0})"
    if [ -f "$out" ]; then
      echo "nightly-slurm: $out is written already (this task was requeued after it finished): not measured twice"
      exit 0
    fi
    "$opbench" run --shard "$i/$shards" "$@" --output "$out"
    code=$?
    echo "$code" >"$night/shard-$i-of-$shards.exit"
    exit "$code"
  fi
  finish() {
    echo "$1 $2" >"$night/outcome"
    echo "nightly-slurm: exit $1: $2" >&2
    exit "$1"
  }
  present=()
  missing=()
  for i in $(seq 0 $((shards - 1))); do
    file="$night/shard-$i-of-$shards.json"
    waited=0
    # Shared storage may show a file written on another node a little later.
    while [ ! -f "$file" ] && [ "$waited" -lt "${OPBENCH_SHARD_WAIT:-30}" ]; do
      sleep 1
      waited=$((waited + 1))
    done
    if [ -f "$file" ]; then present+=("$file"); else missing+=("$i"); fi
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    why="shard(s) ${missing[*]} of $shards wrote no results (failed or cancelled: see $night/slurm-shard-I.out)"
    if [ "${#present[@]}" -gt 0 ]; then
      "$opbench" merge "${present[@]}" --output "$night/night.partial.json" &&
        why="$why; the ${#present[@]} that finished are merged in $night/night.partial.json"
    fi
    finish 3 "$why; nothing was added to the history"
  fi
  "$opbench" merge "${present[@]}" --output "$night/night.json" ||
    finish 2 "the shards could not be merged (above); nothing was added to the history"
  run_code=0
  for f in "$night"/shard-*-of-"$shards".exit; do
    [ -f "$f" ] && [ "$(cat "$f")" = 1 ] && run_code=1
  done
  OPBENCH_NIGHT_RESULT="$night/night.json" OPBENCH_NIGHT_RUN_CODE="$run_code" \
    "$OPBENCH_REPO/scripts/nightly.sh" "$@"
  code=$?
  finish "$code" "judged by scripts/nightly.sh: $night/night.gate.md (or night.md on the first night)"
fi

# Submission.
command -v sbatch >/dev/null || { echo "$0: sbatch not found: run this where Slurm's client is" >&2; exit 2; }
shards=3
sbatch_args=()
wait=0
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  case "$1" in
  --shards) [ $# -ge 2 ] || usage; shards="$2"; shift 2 ;;
  --shards=*) shards="${1#--shards=}"; shift ;;
  --wait | -W) wait=1; shift ;;
  *) sbatch_args+=("$1"); shift ;;
  esac
done
[ "${1:-}" = -- ] && shift
# Slurm's own limit (MaxArraySize) is usually 1001 and at most 4000001; past 10000 shards a night
# of the default suite would be a case or less a shard.
max_shards=10000
[[ "$shards" =~ ^[1-9][0-9]{0,5}$ ]] && [ "$shards" -le "$max_shards" ] ||
  { echo "$0: --shards '$shards' is not a whole number from 1 to $max_shards" >&2; exit 2; }
# Each shard is given its own --shard and --output: the night's run arguments may not name them
# (every shard would fail hours later, after its wait in the queue).
for arg in "$@"; do
  case "$arg" in
  --shard | --shard=* | --output | --output=* | -o | -o?*)
    echo "$0: the run arguments hold '$arg': each shard gets its own --shard and --output; leave them out" >&2
    exit 2 ;;
  esac
done

here="$(cd "$(dirname "$0")/.." && pwd)"
export OPBENCH_REPO="$here"
export OPBENCH="$(realpath "${OPBENCH:-$here/build/src/opbench}")"
[ -x "$OPBENCH" ] || { echo "$0: OPBENCH '$OPBENCH' is not an executable" >&2; exit 2; }
nightly_dir="$(realpath -m "${OPBENCH_NIGHTLY_DIR:-results/nightly}")"
export OPBENCH_NIGHTLY_DIR="$nightly_dir"
export OPBENCH_HISTORY="$(realpath -m "${OPBENCH_HISTORY:-$nightly_dir/history.sqlite}")"
stamp="$(date -u +%Y%m%d-%H%M%S)"
night="$nightly_dir/night-$stamp"
n=1
while [ -e "$night" ]; do night="$nightly_dir/night-$stamp-$n"; n=$((n + 1)); done
mkdir -p "$night" || exit 2
# A night whose jobs were not both accepted leaves no folder and no job behind.
abandon() { # why [array job to cancel]
  [ -n "${2:-}" ] && scancel "$2" 2>/dev/null
  rm -rf "$night"
  echo "$0: $1; nothing was submitted" >&2
  exit 2
}

array="$(sbatch --parsable --array=0-$((shards - 1)) --requeue --job-name=opbench-shard \
  --output="$night/slurm-shard-%a.out" --export=ALL "${sbatch_args[@]}" \
  "$here/scripts/nightly-slurm.sh" shard "$night" "$shards" -- "$@")" ||
  abandon "sbatch refused the shards' job array (above)"
array="${array%%;*}"
[[ "$array" =~ ^[0-9]+$ ]] || abandon "sbatch gave no job id for the shards ('$array')" "$array"
wait_flag=()
[ "$wait" = 1 ] && wait_flag=(--wait)
echo "nightly-slurm: night $night: $shards shard(s) in job array $array" >&2
if [ "$wait" = 1 ]; then
  # (sbatch --wait returns when the job ends: the finishing job's id is read from the folder)
  sbatch --parsable "${wait_flag[@]}" --dependency="afterany:$array" \
    --kill-on-invalid-dep=no --job-name=opbench-night --output="$night/slurm-finish.out" \
    --export=ALL "${sbatch_args[@]}" "$here/scripts/nightly-slurm.sh" finish "$night" "$shards" -- "$@" >"$night/finish-job"
  code=$?
  finish_job="$(cat "$night/finish-job" 2>/dev/null)"
  if [ -z "${finish_job%%;*}" ] && [ ! -f "$night/outcome" ]; then
    abandon "sbatch refused the finishing job (above); the shards' job array $array was cancelled" "$array"
  fi
else
  finish_job="$(sbatch --parsable --dependency="afterany:$array" \
    --kill-on-invalid-dep=no --job-name=opbench-night --output="$night/slurm-finish.out" \
    --export=ALL "${sbatch_args[@]}" "$here/scripts/nightly-slurm.sh" finish "$night" "$shards" -- "$@")"
  code=$?
  if [ "$code" -ne 0 ] || ! [[ "${finish_job%%;*}" =~ ^[0-9]+$ ]]; then
    abandon "sbatch refused the finishing job (above); the shards' job array $array was cancelled" "$array"
  fi
fi
echo "nightly-slurm: merging, gating and adding to the history in job ${finish_job%%;*} (after $array)" >&2
echo "$night"
if [ "$wait" = 1 ]; then
  [ -f "$night/outcome" ] && code="$(cut -d' ' -f1 "$night/outcome")"
  exit "$code"
fi
exit "$code"
