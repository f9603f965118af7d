#!/usr/bin/env python3
"""How many cases of a result file stand over 100% of their roof, and why.

    python3 bench/roofline_over.py RESULT.json [--dram-only PEAKS.json]

Without --dram-only: the file's own `work.percent_of_peak`, `bound`, `ceiling` and `over_peak`
(what `opbench run` judged with the peaks it found). With --dram-only PEAKS.json: every case
judged again from its `work.bytes`, `work.flops` and `estimate.time` against one DRAM roof and
the mm peak of PEAKS.json (the rule before the hierarchical roofline of 2026-11-27), so a file
measured before the change is counted the old way. Prints the counts over 100% and over 1000%,
by bound and level, and the ten furthest over.
"""
import argparse
import collections
import json


def old_rule(case, peaks):
    """percent, bound as the single-DRAM-roof rule judged them (None: no roof applies)."""
    w = case.get("work") or {}
    t = (case.get("estimate") or {}).get("time")
    if not t or t <= 0 or w.get("bytes") is None:
        return None, ""
    bandwidth = max(peaks["copy_bandwidth"], peaks["triad_bandwidth"])
    bps = w["bytes"] / t
    if w.get("flops") is not None and w["bytes"] > 0:
        intensity = w["flops"] / w["bytes"]
        if intensity < peaks["gemm_flops"] / bandwidth:
            return 100 * bps / bandwidth, "memory"
        return 100 * (w["flops"] / t) / peaks["gemm_flops"], "compute"
    if w.get("flops") is None:
        return 100 * bps / bandwidth, "memory (bytes only)"
    return None, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("result")
    ap.add_argument("--dram-only", metavar="PEAKS", help="judge again against one DRAM roof")
    ap.add_argument("--direction", default="forward", help="cases of this direction (forward)")
    args = ap.parse_args()
    data = json.load(open(args.result))
    peaks = None
    if args.dram_only:
        entries = json.load(open(args.dram_only))["peaks"]
        peaks = {(e["device"], e["dtype"], e["threads"]): e for e in entries}
    rows = []
    judged = 0
    no_data = 0
    for c in data["cases"]:
        if c.get("status") != "ok" or c.get("direction") != args.direction:
            continue
        w = c.get("work") or {}
        if peaks is not None:
            p = peaks.get((c["device"], c["dtype"], c["threads"]))
            if p is None:
                continue
            pct, bound = old_rule(c, p)
            level, why = ("DRAM" if bound.startswith("memory") else ""), ""
        else:
            pct, bound = w.get("percent_of_peak"), w.get("bound", "")
            level, why = w.get("ceiling", ""), w.get("over_peak", "")
            if bound == "no data moved":
                no_data += 1
        if pct is None:
            continue
        judged += 1
        rows.append((pct, c["case_id"], bound, level, why))
    over = [r for r in rows if r[0] > 100]
    print(f"{args.result}: {judged} {args.direction} cases with a % of roof"
          + (f", {no_data} that move no data" if peaks is None else " (one DRAM roof)"))
    print(f"  over 100%: {len(over)}; over 1000%: {sum(1 for r in over if r[0] > 1000)}; "
          f"over 100% without a reason: {sum(1 for r in over if not r[4])}")
    by = collections.Counter((r[2], r[3]) for r in over)
    for (bound, level), n in by.most_common():
        print(f"    {n:4d}  {bound}{' (' + level + ')' if level else ''}")
    for pct, case_id, bound, level, _ in sorted(over, reverse=True)[:10]:
        print(f"  {pct:10.1f}%  {bound}{' (' + level + ')' if level else ''}  {case_id}")


if __name__ == "__main__":
    main()
