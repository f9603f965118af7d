#!/usr/bin/env python3
"""What a CUDA run saw of its device (bench/gpu_check.sh's `state` step; never the verdict).

    python3 bench/gpu_state.py RESULT.json

Per case: its time, the profiler's kernel time per call (`run --kernel-time`) and their ratio,
the kernels and copies a call launches, any activity off the timer's stream; the SM clock's range
and the clock event reasons over its repetitions (NVML, `timing.repetition_device_state`); then
the run's devices (whether NVML was read, whether the clocks were locked) and its slow spells.
"""
import json
import sys


def main(path):
    result = json.load(open(path))
    print(f"{'case':60s} {'time us':>9s} {'kernel us':>9s} {'ratio':>6s} {'k/call':>6s} "
          f"{'c/call':>6s} {'SM MHz':>11s} reasons")
    for c in result.get("cases", []):
        name = c["case_id"][:60]
        if c.get("status") != "ok":
            print(f"{name:60s} {c.get('status')}: {c.get('message', '')[:60]}")
            continue
        time = c["estimate"]["time"]
        k = c.get("kernel_time") or {}
        kt = k.get("time")
        ratio = f"{time / kt:.3f}" if kt else "-"
        states = c["timing"].get("repetition_device_state", [])
        clocks = [r[end]["sm_clock_mhz"] for r in states for end in ("start", "end")
                  if r[end].get("sm_clock_mhz") is not None]
        reasons = sorted({n for r in states for end in ("start", "end") for n in r[end].get("reasons", [])})
        clock = f"{min(clocks):.0f}-{max(clocks):.0f}" if clocks else "not read"
        print(f"{name:60s} {time * 1e6:9.3f} {kt * 1e6 if kt else float('nan'):9.3f} {ratio:>6s} "
              f"{k.get('kernels_per_call', float('nan')):6.2f} {k.get('copies_per_call', float('nan')):6.2f} "
              f"{clock:>11s} {','.join(reasons) or '-'}"
              + (f"  OFF-STREAM: {k['off_stream']}" if k.get("off_stream") else "")
              + (f"  slowed kept: {c['timing']['device_slowed_repetitions']}"
                 if c["timing"].get("device_slowed_repetitions") else ""))
    for d in result.get("context", {}).get("cuda_devices", []):
        print(f"{d.get('device')}: {d.get('name')}; device state: {d.get('device_state')}; "
              f"clocks: {d.get('clocks')}")
    spells = result.get("summary", {}).get("slow_spells", {})
    print("slow spells:", json.dumps({k: v for k, v in spells.items() if k.startswith(("device", "highest"))}))


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]) or 0)
