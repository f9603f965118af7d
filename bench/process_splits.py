#!/usr/bin/env python3
"""How one run's repetitions would repeat split over processes, on recorded A/A runs.

    bench/process_splits.py GROUP [GROUP ...]     (GROUP: four result files, comma-separated)

Each group is four runs of the default suite (bench/aa.sh's run-K.json, 7 repetition medians a
case, one process each). "1xR": one process's first R repetitions, every pair of the four runs.
"2xR": two processes of R repetitions, their first R each pooled, the four runs split into two
pairs (all three splits). The case's value is the minimum (run's default estimator). Prints, over
all groups' pairs, the mean of the median and p90 of |new/base - 1| and of the cases past x1.25.
"""
import itertools
import json
import statistics
import sys


def load(path):
    return {c["case_id"]: c["timing"]["repetition_medians"]
            for c in json.load(open(path))["cases"] if c["status"] == "ok"}


def quantile(values, q):
    v = sorted(values)
    return v[int(q * (len(v) - 1))]


SPLITS = {"1x7": (1, 7), "1x6": (1, 6), "2x3": (2, 3), "2x4": (2, 4)}
totals = {name: ([], [], []) for name in SPLITS}
for group in sys.argv[1:]:
    runs = [load(path) for path in group.split(",")]
    if len(runs) != 4:
        sys.exit(f"process_splits.py: a group is four result files, got {len(runs)}: {group}")
    ids = set.intersection(*(set(r) for r in runs))
    for name, (processes, reps) in SPLITS.items():
        if processes == 1:
            pairs = [((i,), (j,)) for i, j in itertools.combinations(range(4), 2)]
        else:
            pairs = [((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))]
        for base, new in pairs:
            value = lambda side, c: min(m for k in side for m in runs[k][c][:reps])
            ratios = [value(new, c) / value(base, c) for c in ids]
            changes = [abs(r - 1) for r in ratios]
            totals[name][0].append(statistics.median(changes))
            totals[name][1].append(quantile(changes, 0.9))
            totals[name][2].append(sum(1 for r in ratios if r > 1.25 or r < 0.8))
for name, (medians, p90s, past) in totals.items():
    if medians:
        print(f"{name}  pairs {len(medians):3d}  median |d| {100 * statistics.mean(medians):.2f}%  "
              f"p90 {100 * statistics.mean(p90s):.2f}%  past x1.25 {statistics.mean(past):.1f} (min {min(past)}, max {max(past)})")
