#!/usr/bin/env bash
# run's host allocators against each other on large CPU cases, in alternating fresh processes:
#   jemalloc  the default (tuned: jemalloc preloaded into the measuring processes) against
#             --host-allocator glibc (glibc's malloc, every block from its heap);
#   heap      with --host-allocator glibc: every block from glibc's heap (M_MMAP_MAX=0) against
#             glibc's own mmap for blocks over 32 MiB (GLIBC_TUNABLES=glibc.malloc.mmap_max=65536,
#             glibc's default), which maps and faults such a block in afresh on every call;
#   thp       with --host-allocator glibc: LibTorch's blocks of 2 MiB or more on transparent huge
#             pages (THP_MEM_ALLOC_ENABLE=1) against 4 KiB pages (=0).
#
#   bench/host_allocator.sh [jemalloc|heap|thp] [ROUNDS=3]
#
# Prints, per case, the median over rounds of each setting's time, their ratio, and how far apart
# the rounds of each setting were (slowest / fastest round): a setting that leaves page faults in
# the timed calls is slower and repeats worse from process to process.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
opbench="${OPBENCH:-$here/build/src/opbench}"
what="${1:-jemalloc}"
rounds="${2:-3}"
glibc=(--host-allocator glibc)
case "$what" in
  jemalloc) on=(env) on_flags=() off=(env) off_flags=("${glibc[@]}") names=("jemalloc" "glibc heap") ;;
  heap) on=(env) off=(env GLIBC_TUNABLES=glibc.malloc.mmap_max=65536) on_flags=("${glibc[@]}") off_flags=("${glibc[@]}") names=("heap" "mmap over 32 MiB") ;;
  thp) on=(env THP_MEM_ALLOC_ENABLE=1) off=(env THP_MEM_ALLOC_ENABLE=0) on_flags=("${glibc[@]}") off_flags=("${glibc[@]}") names=("huge pages" "4 KiB pages") ;;
  *) echo "host_allocator.sh: unknown comparison '$what' (valid: jemalloc, heap, thp)" >&2; exit 2 ;;
esac
cases=(
  "binary_cross_entropy_with_logits/self=120000x80,target=120000x80:uniform/float32/cpu/t2/forward"
  "index_add/self=30522x768,dim=0,index=1024:int64,source=1024x768/float32/cpu/t2/forward"
  "index_put/self=120000x80,indices=(1000:int64),values=1000x80/float32/cpu/t2/forward"
  "masked_select/self=120000x80,mask=120000x80:bool/float32/cpu/t2/forward"
  "nonzero/self=120000x80:bool/float32/cpu/t2/forward"
  "log_softmax/self=1024x30522,dim=-1/float32/cpu/t2/forward"
  "kl_div/self=1024x30522,target=1024x30522:uniform,reduction=1/float32/cpu/t2/forward"
  "rms_norm/input=8x128x4096,normalized_shape=[4096],weight=4096/float32/cpu/t2/forward"
  "relu_/self=8x256x56x56/float32/cpu/t2/forward"
  "add/self=8x128x768,other=768/float32/cpu/t2/forward"
)
args=()
for c in "${cases[@]}"; do args+=(--case "$c"); done
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
for k in $(seq 1 "$rounds"); do
  "${on[@]}" "$opbench" run "${args[@]}" ${on_flags[@]+"${on_flags[@]}"} --no-memory --output "$dir/on-$k.json" >/dev/null 2>&1 || true
  "${off[@]}" "$opbench" run "${args[@]}" ${off_flags[@]+"${off_flags[@]}"} --no-memory --output "$dir/off-$k.json" >/dev/null 2>&1 || true
done
python3 - "$dir" "$rounds" "${names[@]}" <<'PY'
import json, os, statistics, sys
folder, rounds, on_name, off_name = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
times = {}
for k in range(1, rounds + 1):
    for side in ("on", "off"):
        path = f"{folder}/{side}-{k}.json"
        if not os.path.exists(path):
            print(f"round {k}, {side}: the run wrote no result", file=sys.stderr)
            continue
        for c in json.load(open(path))["cases"]:
            if c["status"] == "ok" and c["estimate"]["time"]:
                times.setdefault(c["case_id"], {}).setdefault(side, []).append(c["estimate"]["time"])
def spread(v):
    return f"x{max(v) / min(v):.2f}" if v else "-"
def median_us(v):
    return f"{statistics.median(v) * 1e6:.0f} us" if v else "-"
print(f"{rounds} rounds, alternating fresh processes (the defaults: 3 processes a run); each case's time\n")
print(f"| case | {on_name} | {off_name} | ratio | rounds apart, {on_name} | rounds apart, {off_name} |")
print("|---|---:|---:|---:|---:|---:|")
for case, t in times.items():
    on, off = t.get("on", []), t.get("off", [])
    ratio = f"{statistics.median(off) / statistics.median(on):.2f}x" if on and off else "-"
    print(f"| `{case}` | {median_us(on)} | {median_us(off)} | {ratio} | {spread(on)} | {spread(off)} |")
PY
