#!/usr/bin/env bash
# Transparent huge pages for LibTorch's CPU blocks (run --host-allocator tuned sets
# THP_MEM_ALLOC_ENABLE=1): large cases timed with and without, in alternating fresh processes.
# Without huge pages, a block over glibc's 32 MiB mmap threshold is faulted in 4 KiB page by page
# on every call, so the case times page faults as much as its kernel.
#
#   bench/huge_pages.sh [ROUNDS=3]
#
# Prints, per case, the median over rounds of each setting's time and their ratio.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
rounds="${1:-3}"
cases=(
  "binary_cross_entropy_with_logits/self=120000x80,target=120000x80:uniform/float32/cpu/t2/forward"
  "log_softmax/self=1024x30522,dim=-1/float32/cpu/t2/forward"
  "index_add/self=30522x768,dim=0,index=1024:int64,source=1024x768/float32/cpu/t2/forward"
  "rms_norm/input=8x128x4096,normalized_shape=[4096],weight=4096/float32/cpu/t2/forward"
  "relu_/self=8x256x56x56/float32/cpu/t2/forward"
  "add/self=8x128x768,other=768/float32/cpu/t2/forward"
)
args=()
for c in "${cases[@]}"; do args+=(--case "$c"); done
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
for k in $(seq 1 "$rounds"); do
  for thp in 1 0; do
    THP_MEM_ALLOC_ENABLE=$thp "$opbench" run "${args[@]}" --repetitions 5 --output "$dir/thp$thp-$k.json" >/dev/null 2>&1 || true
  done
done
python3 - "$dir" "$rounds" <<'PY'
import json, statistics, sys
folder, rounds = sys.argv[1], int(sys.argv[2])
times = {}
for k in range(1, rounds + 1):
    for thp in (1, 0):
        for c in json.load(open(f"{folder}/thp{thp}-{k}.json"))["cases"]:
            if c["status"] == "ok":
                times.setdefault(c["case_id"], {}).setdefault(thp, []).append(c["estimate"]["median"])
print(f"{rounds} rounds, alternating fresh processes; median over rounds of each case's median\n")
print("| case | huge pages | 4 KiB pages | ratio |\n|---|---:|---:|---:|")
for case, t in times.items():
    on, off = statistics.median(t.get(1, [float('nan')])), statistics.median(t.get(0, [float('nan')]))
    print(f"| `{case}` | {on * 1e6:.0f} us | {off * 1e6:.0f} us | {off / on:.2f}x |")
PY
