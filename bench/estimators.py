#!/usr/bin/env python3
"""Other estimators on the same A/A recordings: how well each would repeat.

    bench/estimators.py DIR [DIR ...]     (DIR: a bench/aa.sh folder with run-1.json, run-2.json, ...)

For every pair of runs in a folder and every case present and ok in both, each estimator is
applied to the case's repetition medians (timing.repetition_medians) in each run; prints, per
pair, the median, p90 and worst of |runB/runA - 1| over cases and how many cases moved past
x1.25 (either way), as bench/aa.sh does for opbench's own time (`run --estimator`, fastest-third
by default; `compare --estimator` applies any of opbench's estimators to any two files).
"""
import glob
import itertools
import json
import math
import statistics
import sys

from pystats import fastest_third, quantile


def fastest_confirmed(tolerance):
    """The fastest repetition median that another one confirms within `tolerance` (a lone fast
    one is passed over); the fastest when none is confirmed."""
    def estimate(m):
        s = sorted(m)
        for a, b in zip(s, s[1:]):
            if b <= a * (1 + tolerance):
                return a
        return s[0]
    return estimate


ESTIMATORS = {
    "median": lambda m: statistics.median(m),
    "mean": lambda m: statistics.mean(m),
    "p25": lambda m: quantile(m, 0.25),
    "p33": lambda m: quantile(m, 1 / 3),
    "min": min,
    "second": lambda m: sorted(m)[min(1, len(m) - 1)],
    "mean2": lambda m: statistics.mean(sorted(m)[:2]),
    "third": fastest_third,  # run --estimator fastest-third, the default
    "conf5": fastest_confirmed(0.05),
    "conf15": fastest_confirmed(0.15),
    "conf25": fastest_confirmed(0.25),
}

for folder in sys.argv[1:]:
    runs = sorted(glob.glob(f"{folder}/run-*.json"), key=lambda f: int(f.rsplit("-", 1)[1].split(".")[0]))
    medians = []
    for path in runs:
        cases = json.load(open(path))["cases"]
        medians.append({c["case_id"]: c["timing"]["repetition_medians"] for c in cases
                        if c["status"] == "ok" and c["timing"].get("repetition_medians")})
    for name, estimate in ESTIMATORS.items():
        for i, j in itertools.combinations(range(len(runs)), 2):
            ratios = [estimate(medians[j][k]) / estimate(medians[i][k]) for k in medians[i] if k in medians[j]]
            changes = [abs(r - 1) for r in ratios]
            past = sum(1 for r in ratios if r > 1.25 or r < 0.8)
            print(f"{folder}  {name:6}  {i + 1} vs {j + 1}  cases {len(changes)}  median {quantile(changes, 0.5) * 100:.1f}%  "
                  f"p90 {quantile(changes, 0.9) * 100:.1f}%  worst {max(changes) * 100:.1f}%  past x1.25 {past}")
