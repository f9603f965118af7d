#!/usr/bin/env python3
"""Would more repetitions repeat better? A resampling of recorded A/A runs.

    bench/repetitions.py [--trials N] DIR [DIR ...]     (DIR: a bench/aa.sh folder)

Pools, per case, the repetition medians of every run file in the folders (run-K.json and
baseline-run-K.json; cases ok in all of them with the same `timing.restored`), then, TRIALS times,
shuffles each case's pool and splits it into two disjoint halves: two simulated runs. Each run's
time is the fastest of its first K medians (opbench's --estimator min); with an adaptive rule, K
grows by EXTRA when its first K spread past a factor (max/min). Prints, per rule, the mean over
trials of the median, p90, p99 and worst |runB/runA - 1| over cases and the repetitions a case
took. Repetitions of one process share that process's state, which this pooling mixes: it tells
how the rules rank, not the absolute spread a real A/A would show.
"""
import argparse
import json
import random
import statistics

from pystats import aa_runs

parser = argparse.ArgumentParser()
parser.add_argument("folders", nargs="+")
parser.add_argument("--trials", type=int, default=60)
args = parser.parse_args()

runs = []
for folder in args.folders:
    for path in aa_runs(folder):
        runs.append({c["case_id"]: c for c in json.load(open(path))["cases"] if c.get("status") == "ok"})
pool = {}
for case_id, first in runs[0].items():
    same = [r.get(case_id) for r in runs]
    if any(c is None or c["timing"].get("restored", []) != first["timing"].get("restored", []) for c in same):
        continue
    pool[case_id] = [m for c in same for m in c["timing"]["repetition_medians"]]
# Cases with a repetition set aside (fewer medians) are left out, so every case has both halves.
full = statistics.mode(len(v) for v in pool.values())
pool = {k: v for k, v in pool.items() if len(v) == full}
half = full // 2
print(f"{len(runs)} runs, {len(pool)} cases, {half} repetitions a simulated run at most\n")


def simulate(k, spread=None, extra=0):
    rng = random.Random(1)
    out = []
    for _ in range(args.trials):
        changes, taken = [], 0
        for values in pool.values():
            v = values[:]
            rng.shuffle(v)
            times = []
            for part in (v[:half], v[half:2 * half]):
                chosen = part[:k]
                if spread and max(chosen) / min(chosen) > spread:
                    chosen = part[:k + extra]
                taken += len(chosen)
                times.append(min(chosen))
            changes.append(abs(times[1] / times[0] - 1))
        changes.sort()
        n = len(changes)
        out.append((changes[n // 2], changes[int(0.9 * n)], changes[int(0.99 * n)], changes[-1], taken / (2 * n)))
    return [statistics.mean(x[i] for x in out) for i in range(5)]


print("| rule | median | p90 | p99 | worst | repetitions a case |")
print("|---|---:|---:|---:|---:|---:|")
rules = [("6", 6, None, 0), ("6, +6 past x1.10", 6, 1.10, 6), ("6, +6 past x1.15", 6, 1.15, 6),
         ("6, +6 past x1.20", 6, 1.20, 6), ("9", 9, None, 0), ("12", 12, None, 0)]
for label, k, spread, extra in rules:
    if k + extra > half:
        continue
    m, p90, p99, worst, reps = simulate(k, spread, extra)
    print(f"| {label} | {m:.2%} | {p90:.2%} | {p99:.2%} | {worst:.1%} | {reps:.2f} |")
