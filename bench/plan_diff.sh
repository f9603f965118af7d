#!/usr/bin/env bash
# Do two opbench builds plan the same cases? Runs `opbench run --dry-run` over the whole catalogue
# (the default suite; every operator case and sample in every shape class; the dtype, thread,
# direction, stage and memory-format axes at once; a sample axis sweep; --from a stored result)
# with each binary and diffs the case ids. Prints one line per plan and exits 1 on any difference.
#   bench/plan_diff.sh BEFORE_BINARY AFTER_BINARY [DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -ge 2 ] || { echo "usage: bench/plan_diff.sh BEFORE_BINARY AFTER_BINARY [DIR]" >&2; exit 2; }
before="$1" after="$2" dir="${3:-results/plan-diff-$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$dir"
all="small,common,large,skewed"
plans=(
  "default|"
  "every-case|--shape-class $all"
  "axes|--shape-class $all --dtype float32,float16,bfloat16,float64 --threads 1,2 --backward --stage eager,script,fused,graph,inductor --memory-format contiguous,channels_last"
  "sample-sweep|--samples box_iou,smooth_l1_loss --axis boxes1=100:1600:*2 --axis beta=0.1,0.5,1"
  "from|--from $here/tests/data/compare/base.json"
)
status=0
for plan in "${plans[@]}"; do
  name="${plan%%|*}" args="${plan#*|}"
  # shellcheck disable=SC2086
  "$before" run --dry-run $args >"$dir/$name.before" 2>"$dir/$name.before.err" || true
  # shellcheck disable=SC2086
  "$after" run --dry-run $args >"$dir/$name.after" 2>"$dir/$name.after.err" || true
  if cmp -s "$dir/$name.before" "$dir/$name.after" && cmp -s "$dir/$name.before.err" "$dir/$name.after.err"; then
    echo "$name: identical ($(wc -l <"$dir/$name.before") case ids)"
  else
    echo "$name: DIFFERENT (diff $dir/$name.before $dir/$name.after)"
    status=1
  fi
done
exit $status
