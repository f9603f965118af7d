"""Reads a bench/interval_goals.sh folder (bench/aa.sh runs of two builds, `baseline-run-K.json` the
build before and `run-K.json` this one) and prints issue 62's goals for each build: the wall clock
of each run, the A/A (median / p90 |Δ| of the case times of every pair of runs), how often one run's
time fell inside another run's printed interval (every ordered pair), the interval's median
half-width, the cases wider than ±5% and how many say why, and, on the cases the build before
already measured tight, how far the two builds' times lie apart against their own A/A.

    python bench/interval_goals.py DIR

A run without `estimate.interval` (written before 2026-11-28) is judged on the interval it printed
then: the median's distribution-free interval, estimate.low / high, half-width (high - low) / 2 /
median."""
import glob
import itertools
import json
import os
import statistics
import sys

from pystats import quantile, uncertainty


def load(path):
    data = json.load(open(path))
    return data, {c["case_id"]: c for c in data["cases"]}


def interval(case):
    """(low, high, relative half-width) of the interval a case printed."""
    e = case["estimate"]
    i = e.get("interval")
    if i is not None:
        return i["low"], i["high"], i["half_width"]
    if e.get("median"):
        return e["low"], e["high"], (e["high"] - e["low"]) / 2 / e["median"]
    return None, None, None


def ok(case):
    return case["status"] == "ok" and case["estimate"].get("time")


def pct(x):
    return f"{x * 100:.1f}%"


def main(folder):
    builds = [("baseline-", "build before"), ("", "this build")]
    print(f"Issue 62's goals on `{folder}`\n")
    print("| build | runs | wall (s, each) | all ok | A/A median / p90 \\|Δ\\| (each pair) "
          "| next run inside the interval | median half-width | wider than ±5% (with a reason) "
          "| cases by processes |")
    print("|---|---:|---|---|---|---:|---:|---|---|")
    times = {}
    for prefix, label in builds:
        paths = sorted(glob.glob(os.path.join(folder, f"{prefix}run-*.json")))
        if prefix == "":
            paths = [p for p in paths if not os.path.basename(p).startswith("baseline-")]
        runs = [load(p) for p in paths]
        if len(runs) < 2:
            continue
        walls = [r[0]["summary"]["time_spent"]["wall"] for r in runs]
        all_ok = all(r[0]["summary"]["ok"] == r[0]["summary"]["cases"] for r in runs)
        aa = []
        for (_, a), (_, b) in itertools.combinations(runs, 2):
            d = [abs(b[i]["estimate"]["time"] / a[i]["estimate"]["time"] - 1)
                 for i in a if i in b and ok(a[i]) and ok(b[i])]
            aa.append(f"{pct(statistics.median(d))} / {pct(quantile(d, 0.9))}")
        inside, widths, wide, said = [], [], 0, 0
        for (_, a), (_, b) in itertools.permutations(runs, 2):
            for i in a:
                if i not in b or not ok(a[i]) or not ok(b[i]):
                    continue
                low, high, h = interval(a[i])
                if h is None:
                    continue
                inside.append(low <= b[i]["estimate"]["time"] <= high)
        processes = {}
        for _, cases in runs:
            for c in cases.values():
                if not ok(c):
                    continue
                _, _, h = interval(c)
                if h is None:
                    continue
                widths.append(h)
                if h > 0.05:
                    wide += 1
                    said += c["estimate"].get("interval", {}).get("wide", "none") != "none"
                n = len(set(c["timing"].get("repetition_processes") or [0]))
                processes[n] = processes.get(n, 0) + 1
        by_processes = ", ".join(f"{n}: {k}" for n, k in sorted(processes.items()))
        print(f"| {label} | {len(runs)} | {' / '.join(f'{w:.0f}' for w in walls)} | "
              f"{'yes' if all_ok else 'no'} | {'; '.join(aa)} | {pct(sum(inside) / len(inside))} | "
              f"{pct(statistics.median(widths))} | {wide} of {len(widths)} ({said}) | {by_processes} |")
        times[prefix] = runs
    if len(times) < 2:
        return
    # The builds' agreement on the cases the build before measured tight (in every run of it, the
    # repetitions its time is made from within 2%: results::uncertainty): the median over runs of
    # each build's time, their ratio.
    before, after = times["baseline-"], times[""]
    tight = [i for i in before[0][1]
             if all(i in r and ok(r[i]) and (uncertainty(r[i]) or 1) <= 0.02 for _, r in before)
             and all(i in r and ok(r[i]) for _, r in after)]
    if not tight:
        print("\nNo case the build before measured tight in every run.")
        return
    ratio = [statistics.median(r[i]["estimate"]["time"] for _, r in after)
             / statistics.median(r[i]["estimate"]["time"] for _, r in before) for i in tight]
    d = [abs(x - 1) for x in ratio]
    print(f"\nThe {len(tight)} cases whose fastest repetitions the build before found within 2% in "
          f"every run: this "
          f"build's time (median of its runs) over the build before's: median ×{statistics.median(ratio):.4f}, "
          f"median |Δ| {pct(statistics.median(d))}, p90 |Δ| {pct(quantile(d, 0.9))}, "
          f"past ±5%: {sum(x > 0.05 for x in d)}")


if __name__ == "__main__":
    main(sys.argv[1])
