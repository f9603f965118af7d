#!/usr/bin/env bash
# The one-command GPU acceptance (issue #13), for anyone with a CUDA GPU and a Python whose torch
# has CUDA (the references are measured with it):
#   1. build (scripts/build.sh, unless $OPBENCH_BUILD_DIR already holds a build) and ctest;
#   2. bench_gpu_check: device copy bandwidth, events against host clock, GPU time against batch;
#   3. the fixed cases of bench/gpu_check.py with opbench (GPU, CPU and batch time) and with
#      PyTorch's references (profiler kernel time, event loop, torch.utils.benchmark, graphs);
#   4. the default suite twice on the device: errors, target noise reached, the A/A spread;
#   5. one verdict table (bench/gpu_check.py verdict); exit 1 when a goal is missed.
#   bench/gpu_check.sh [DEVICE=gpu0]
# Environment: OPBENCH_BUILD_DIR (default build), PYTHON (default python3), OUT_DIR (default
# results/gpu-check-DATE), STEPS (default "ctest check fixed suite"; a subset runs only those,
# the verdict uses whatever OUT_DIR holds).
set -euo pipefail
cd "$(dirname "$0")/.."
device="${1:-gpu0}"
build="${OPBENCH_BUILD_DIR:-build}"
python="${PYTHON:-python3}"
out="${OUT_DIR:-results/gpu-check-$(date -u +%Y%m%d-%H%M%S)}"
steps=" ${STEPS:-ctest check fixed suite} "
mkdir -p "$out"
[ -x "$build/src/opbench" ] || ./scripts/build.sh
opbench="$build/src/opbench"
status=0
if [[ "$steps" == *" ctest "* ]]; then
  echo "== ctest"
  (cd "$build" && ctest -j"$(nproc)" --timeout 600 2>&1 | tail -15) | tee "$out/ctest.txt"
  grep -q "100% tests passed" "$out/ctest.txt" || status=1
fi
if [[ "$steps" == *" check "* ]]; then
  echo "== bench_gpu_check"
  "$build/bench/bench_gpu_check" "cuda:${device#gpu}" | tee "$out/gpu_check.txt" || status=1
fi
if [[ "$steps" == *" fixed "* ]]; then
  echo "== fixed cases: opbench, then PyTorch's references"
  "$python" bench/gpu_check.py config "$out/cases.json"
  "$opbench" run --config "$out/cases.json" --ctx "$device" --no-memory -o "$out/fixed.json" 2>&1 | tail -9
  "$python" bench/gpu_check.py reference "$out/reference.json"
  # Diagnostic only (never the verdict): where relu 64x64x128's GPU time exceeds its kernel time.
  "$python" bench/gpu_check.py diagnose "$out/diagnose.json" || echo "   (the diagnostic failed; the acceptance goes on)"
fi
if [[ "$steps" == *" suite "* ]]; then
  for i in 1 2; do
    echo "== default suite on $device, run $i"
    start=$(date +%s)
    "$opbench" run --ctx "$device" -o "$out/suite-$i.json" 2>"$out/suite-$i.log" | tail -1 || true
    echo "   $(( $(date +%s) - start )) s; $(tail -2 "$out/suite-$i.log" | head -1)"
  done
fi
echo "== verdict"
aa=()
[ -f "$out/suite-1.json" ] && [ -f "$out/suite-2.json" ] && aa=(--aa "$out/suite-2.json" "$out/suite-1.json")
"$python" bench/gpu_check.py verdict "$out/fixed.json" "$out/reference.json" "${aa[@]}" | tee "$out/verdict.txt" || status=1
exit $status
