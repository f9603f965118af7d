#!/usr/bin/env bash
# The GPU acceptance in one command that fits one lent machine's call (issue #45: at most 8
# minutes on an H100, build included), for anyone with a CUDA GPU and a Python whose torch has
# CUDA (the references are measured with it):
#   bench/gpu_check.sh [DEVICE=gpu0]
# Steps; each runs under the time left before DEADLINE_S (default 470 s from the start), and a
# step with no time left is skipped, saying so (summary.txt):
#   build   unpacks ../shared/gpu's .gpu/debs (when there) and builds only what the check runs;
#   stages  (its compile) 9 samples covering every tag, one case each: their Inductor packages
#           compile in parallel while the untimed steps below run;
#   suite   the whole default suite once on DEVICE, quick settings: errors and statuses;
#   ctest   the CUDA unit tests (CudaDevice, CudaBuild, ColdMode, SampleDevices: every sample's
#           every dtype forward and backward on every device);
#   extra   training steps on a shard, calibrate (the roofline's L2 and device memory), the
#           custom-op example on the device;
#   then, the compile done, the timed steps:
#   fixed   bench/gpu_check.py's fixed cases with opbench, then PyTorch's references;
#   state   the fixed cases again with --kernel-time --lock-clocks: each repetition's device
#           state through NVML, the profiler's kernel time beside the GPU time, whether the
#           clocks could be locked (state.txt; never the verdict);
#   stages  those cases at eager, script, fused, graph, inductor and script-dynamic, the first
#           DYNAMIC_SAMPLES (default 3) at inductor-dynamic too, then the stage table;
#   aa      one shard (1/8) of the default suite twice with the default settings (A/A), and
#           `opbench compare`'s exit code on the two (aa-compare.md; never the verdict);
#   check   bench_gpu_check: copy bandwidth, events against host clock, GPU time against batch;
#   diagnose where relu 64x64x128's GPU time goes over its kernel time, then bench/gpu_conditions.py
#           (one setting changed at a time, the first repeated last; never the verdict);
#   verdict one table: bench/gpu_check.py verdict (fixed cases, A/A, suite errors, stages).
# One after another the steps took over 10 minutes on an H100: hence the overlap, the 9 samples
# and the A/A on 1/8 (each lent machine's step times: docs/cuda.md).
# Everything goes to OUT_DIR (default results/gpu-check-DATE): a few JSON results, their logs,
# stages.md and summary.txt. Exit 1 when a goal is missed or a step failed.
# Environment: OPBENCH_BUILD_DIR (default build-gpu where .gpu/ or build-gpu/ is, else build), PYTHON (default
# python3), OUT_DIR, STEPS (a subset, in any order: only those run), DEADLINE_S, STAGE_SAMPLES
# (comma-separated; default below), SUBSET (extra run arguments for a dry run on the CPU, e.g.
# "--shard 0/40": `DEVICE=cpu`-style mechanics checks only; never for a verdict).
set -uo pipefail
cd "$(dirname "$0")/.."
device="${1:-gpu0}"
# build-gpu where .gpu/ is, or where an earlier call on this machine built it (a later call that
# carries no .gpu/ must not look for ./build: on 2026-11-27 one did, and found nothing to run).
build="${OPBENCH_BUILD_DIR:-$({ [ -d .gpu ] || [ -x build-gpu/src/opbench ]; } && echo build-gpu || echo build)}"
python="${PYTHON:-python3}"
out="${OUT_DIR:-results/gpu-check-$(date -u +%Y%m%d-%H%M%S)}"
steps=" ${STEPS:-build suite fixed state stages aa ctest check extra diagnose verdict} "
deadline=$((SECONDS + ${DEADLINE_S:-470}))
subset=(${SUBSET:-})
dynamic="${DYNAMIC_SAMPLES:-3}" # the first this many stage samples also run inductor-dynamic
samples="${STAGE_SAMPLES:-knowledge_gap_loss,get_softgauss_loss_weight,tblr2bbox,detr_loss_cardinality,assign_wrt_overlaps,linear_gelu,box_iou,bbox2delta,balanced_l1_loss}"
mkdir -p "$out"
opbench="$build/src/opbench"
summary="$out/summary.txt"
status=0
export OPBENCH_PYTHON="${OPBENCH_PYTHON:-$python}" OPBENCH_CACHE_DIR="${OPBENCH_CACHE_DIR:-$out/../gpu-check-cache}"
[ -d /opt/deps/usr/lib/x86_64-linux-gnu ] && export LD_LIBRARY_PATH="/opt/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"

note() { echo "$*" | tee -a "$summary"; }
wanted() { [[ "$steps" == *" $1 "* ]]; }
# left CAP: the seconds a step may take: CAP, or what is left before the deadline.
left() { local rest=$((deadline - SECONDS)); echo $((rest < $1 ? rest : $1)); }
# step NAME CAP COMMAND...: runs COMMAND (a program or a function of this script) in its own
# process group, its output into OUT/NAME.log, stopped with the whole group at its time; notes
# the outcome and its seconds. A step with under 10 s left is skipped.
step() {
  local name="$1" cap="$2" start=$SECONDS limit code pid watcher
  shift 2
  limit=$(left "$cap")
  if [ "$limit" -lt 10 ]; then
    note "$name: skipped (no time left before the deadline)"
    return 1
  fi
  set -m
  ("$@") >>"$out/$name.log" 2>&1 &
  pid=$!
  set +m
  (sleep "$limit" && kill -TERM -- -"$pid" && sleep 5 && kill -KILL -- -"$pid") >/dev/null 2>&1 &
  watcher=$!
  wait "$pid"
  code=$?
  pkill -P "$watcher" 2>/dev/null
  kill "$watcher" 2>/dev/null
  wait "$watcher" 2>/dev/null
  note "$name: exit $code, $((SECONDS - start)) s$([ $((SECONDS - start)) -ge "$limit" ] && echo " (stopped at its $limit s)")"
  return $code
}
failed() { status=1; }

note "gpu_check on $device, $(date -u +%FT%TZ), $(nvidia-smi -L 2>/dev/null | head -1 || echo 'no nvidia-smi')"
if wanted build; then
  build_it() {
    if [ -d .gpu/debs ]; then
      mkdir -p /opt/deps && for f in .gpu/debs/*.deb; do dpkg -x "$f" /opt/deps; done
      export LD_LIBRARY_PATH="/opt/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
    fi
    local torch_prefix
    torch_prefix="$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')" || return 1
    [ -f "$build/CMakeCache.txt" ] ||
      cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$torch_prefix;/opt/deps/usr" \
        -DOPBENCH_REQUIRE_CUDA=ON || return 1
    # Only what this check runs: the 8-minute budget has no room for the other test binaries.
    cmake --build "$build" -j"$(nproc)" --target opbench bench_gpu_check unit_engine_tests myops
  }
  step build 300 build_it || { note "build failed: see build.log"; exit 1; }
fi
[ -x "$opbench" ] || { note "no $opbench: build first (STEPS=build)"; exit 1; }

# The Inductor packages take minutes to compile (CPU work): they compile while the steps whose
# times are not judged run (suite, ctest, extra), and the timed steps wait for them.
compile_pid=""
if wanted stages; then
  # One case per sample (its catalogue's second), as the CPU plans them; the device named after.
  case_device="$device"
  [[ "$device" == gpu* ]] && case_device="cuda:${device#gpu}"
  mapfile -t ids < <("$opbench" run --samples "$samples" --dry-run 2>/dev/null | grep / |
    awk -F/ '{ n[$1]++; if (n[$1] <= 2) pick[$1] = $0; if (n[$1] == 1) order[++k] = $1 }
             END { for (i = 1; i <= k; i++) print pick[order[i]] }' | sed "s|/cpu/|/$case_device/|")
  note "stages: ${#ids[@]} cases: ${ids[*]%%/*}"
  warm() { # the inductor packages, compiled in parallel (cached by case), timed nowhere
    local i=0 id
    for id in "${ids[@]}"; do
      "$opbench" run --samples "$samples" --case "$id/inductor" --stage inductor --ctx "$device" \
        --repetitions 1 --processes 1 --runs 1 --no-memory -o "$out/warm-$i.json" >"$out/warm-$i.log" 2>&1 &
      i=$((i + 1))
    done
    for id in "${ids[@]:0:$dynamic}"; do
      "$opbench" run --samples "$samples" --case "$id/inductor-dynamic" --stage inductor-dynamic \
        --ctx "$device" --repetitions 1 --processes 1 --runs 1 --no-memory -o "$out/warm-$i.json" \
        >"$out/warm-$i.log" 2>&1 &
      i=$((i + 1))
    done
    wait
  }
  step stages-compile 240 warm &
  compile_pid=$!
fi
if wanted suite; then
  step suite 150 "$opbench" run --ctx "$device" --repetitions 1 --processes 1 --process-warmup 0 \
    --retries 0 "${subset[@]}" -o "$out/suite.json" || failed
fi
if wanted ctest; then
  step ctest 60 "$build/tests/unit_engine_tests" --gtest_filter='Cuda*:ColdMode*:SampleDevices.*:DeviceStateNvml.*' || failed
fi
if wanted extra; then
  step train 60 "$opbench" run --ctx "$device" --train --shard 0/8 --repetitions 1 --processes 1 \
    --process-warmup 0 --retries 0 "${subset[@]}" -o "$out/train.json" || failed
  # The roofline's levels on the GPU: its L2 beside device memory (docs/roofline.md).
  step calibrate 30 "$opbench" calibrate --ctx "$device" --seconds 0.3 --peaks "$out/peaks.json" || failed
  library="$(ls "$build"/examples/custom_op/libmyops.* 2>/dev/null | head -1)"
  step custom-op 40 "$opbench" run --load-library "$library" --config examples/custom_op/fast_gelu.json \
    --ctx "$device" --repetitions 3 --processes 1 -o "$out/custom-op.json" || failed
fi
[ -n "$compile_pid" ] && wait "$compile_pid"
if wanted fixed; then
  "$python" bench/gpu_check.py config "$out/cases.json"
  step fixed 60 "$opbench" run --config "$out/cases.json" --ctx "$device" --no-memory -o "$out/fixed.json" || failed
  step reference 90 "$python" bench/gpu_check.py reference "$out/reference.json" || failed
fi
if wanted state; then
  [ -f "$out/cases.json" ] || "$python" bench/gpu_check.py config "$out/cases.json"
  step state 60 "$opbench" run --config "$out/cases.json" --ctx "$device" --no-memory --kernel-time \
    --lock-clocks --repetitions 3 --processes 1 "${subset[@]}" -o "$out/state.json" || failed
  [ -f "$out/state.json" ] && "$python" bench/gpu_state.py "$out/state.json" | tee "$out/state.txt"
fi
if wanted stages; then
  rm -f "$out"/warm-*.json
  cases=()
  for id in "${ids[@]}"; do
    cases+=(--case "$id")
    for s in script fused graph inductor script-dynamic; do cases+=(--case "$id/$s"); done
  done
  for id in "${ids[@]:0:$dynamic}"; do cases+=(--case "$id/inductor-dynamic"); done
  step stages 120 "$opbench" run --samples "$samples" "${cases[@]}" \
    --stage eager,script,fused,graph,inductor,script-dynamic,inductor-dynamic \
    --ctx "$device" --repetitions 3 --processes 1 -o "$out/stages.json" || failed
  [ -f "$out/stages.json" ] && "$opbench" export --format stages -i "$out/stages.json" >"$out/stages.md" 2>&1
fi
if wanted aa; then
  for i in 1 2; do
    step "aa-$i" 90 "$opbench" run --ctx "$device" --shard 1/8 "${subset[@]}" -o "$out/aa-$i.json" || failed
  done
  # compare's own exit code on the A/A (issue #42): reported, never the verdict.
  [ -f "$out/aa-2.json" ] && { "$opbench" compare "$out/aa-1.json" "$out/aa-2.json" --format md \
    >"$out/aa-compare.md" 2>&1; note "aa-compare: exit $?"; }
fi
if wanted check && [ "$device" != cpu ]; then
  step check 40 "$build/bench/bench_gpu_check" "cuda:${device#gpu}" || failed
fi
if wanted diagnose; then
  step diagnose 40 "$python" bench/gpu_check.py diagnose "$out/diagnose.json" || note "   (the diagnostic is never the verdict)"
  step conditions 40 "$python" bench/gpu_conditions.py "$out/conditions.json" || note "   (the diagnostic is never the verdict)"
fi
if wanted verdict; then
  args=()
  for f in fixed reference suite aa-1 aa-2 stages train custom-op conditions; do
    [ -f "$out/$f.json" ] && args+=("--$f" "$out/$f.json")
  done
  "$python" bench/gpu_check.py verdict "${args[@]}" | tee "$out/verdict.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || failed
fi
note "gpu_check: $([ $status = 0 ] && echo PASS || echo FAIL) after $SECONDS s"
exit $status
