#!/usr/bin/env python3
"""Which condition of opbench's GPU time moves a small kernel's time per call in a graph replay.

  gpu_conditions.py OUT.json [CASE=relu-64x64x128]   (a case of gpu_check.py's CASES)

opbench's GPU time of relu 64x64x128 (graph replays of ~50-80 calls, each call a fresh output)
came out 8% over PyTorch's own replay of a 64-call graph of the same call in gpu_check.py
diagnose, on the H100 and the H200 alike, and 49 or 79 calls per replay gave the same time.
Each row here changes one thing against the first (the diagnose's setting) and times the
replays the same way (CUDA events around replays, per call, median of 15 rounds):
  calls per graph       49, 79, 320 calls instead of 64;
  replays per round     15 instead of 31 (opbench's blocks hold ~1 ms);
  input from the CPU    drawn on the CPU, then copied, as opbench makes inputs;
  after other cases     the caching allocator first holds and frees what opbench's earlier
                        fixed cases allocate (4096x4096 adds and mms, the conv, softmax, sum);
  input at offset N     the input a view N bytes into one 64 MiB buffer (its placement alone);
  as diagnose, again    the first row once more, last: the same setting later in the process.
Each row also gives the SM clock nvidia-smi reports just after it (torch.cuda.clock_rate, through
NVML; "-" where that is not installed). On the H200 (2026-11-27) the first two rows gave 1.62 us
and every later one 1.78-1.81, whatever it changed: see docs/cuda.md. Never a verdict.
"""
import json
import statistics
import sys

from gpu_check import CASES, capture, event_loop, make_call, shape


def per_call(torch, f, calls=64, replays=31):
    graph = capture(torch, f, calls, keep_previous=True)
    for _ in range(3):
        graph.replay()
    torch.cuda.synchronize()
    return event_loop(torch, graph.replay, replays) / calls


def main(path, name="relu-64x64x128"):
    import torch

    _, op, args, _ = next(c for c in CASES if c[0] == name)
    fn = getattr(torch, op)
    device_call = make_call(torch, op, args)
    rows, clocks = {}, {}

    def row(label, value):
        rows[label] = value
        try:
            clocks[label] = torch.cuda.clock_rate()
        except Exception:  # no NVML (pynvml) in this Python
            clocks[label] = None
        print(f"{name} {label:34s} {value * 1e6:8.3f} us/call  SM clock {clocks[label] or '-'} MHz", flush=True)

    row("as diagnose (64 calls, 31 replays)", per_call(torch, device_call))
    for calls in (49, 79, 320):
        row(f"{calls} calls per graph", per_call(torch, device_call, calls=calls))
    row("15 replays per round", per_call(torch, device_call, replays=15))

    generator = torch.Generator().manual_seed(0)
    first_key, first = next((k, v) for k, v in args.items() if isinstance(v, str))
    x_cpu = torch.randn(shape(first), generator=generator).to("cuda").contiguous()
    others = {k: torch.randn(shape(v), device="cuda") if isinstance(v, str) else v
              for k, v in args.items() if k != first_key}
    row("input from the CPU", per_call(torch, lambda: fn(x_cpu, **others)))
    del x_cpu

    held = []
    for sizes in ([4096, 4096],) * 6 + ([32, 64, 56, 56],) * 2 + ([8192, 8192],) * 2 + ([67108864],):
        held.append(torch.empty(sizes, device="cuda"))
    del held  # cached by the allocator, as after opbench's earlier cases
    x_after = torch.randn(shape(first), device="cuda")
    row("after other cases", per_call(torch, lambda: fn(x_after, **others)))
    del x_after

    numel = 1
    for d in shape(first):
        numel *= d
    buffer = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")
    for offset in (0, 512, 4096, 65536, 1 << 20, 3 << 20, (5 << 20) + 2560, 17 << 20, 40 << 20):
        x = buffer[offset:offset + numel * 4].view(torch.float32).view(shape(first))
        x.normal_()
        row(f"input at offset {offset}", per_call(torch, lambda: fn(x, **others)))
    row("as diagnose, again", per_call(torch, device_call))
    values = list(rows.values())
    print(f"{name} spread over rows: {min(values) * 1e6:.3f}..{max(values) * 1e6:.3f} us/call "
          f"(median {statistics.median(values) * 1e6:.3f})", flush=True)
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "case": name,
                   "rows": rows, "sm_clock_mhz": clocks}, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    main(sys.argv[1], *sys.argv[2:3])
