#!/usr/bin/env python3
"""Other estimators on the same A/A recordings: how well each would repeat.

    bench/estimators.py DIR [DIR ...]     (DIR: a bench/aa.sh folder with run-1.json, run-2.json)

For every case present and ok in both runs, each estimator is applied to the case's repetition
medians (timing.repetition_medians) in each run; prints the median, p90 and worst of
|run2/run1 - 1| over cases, as bench/aa.sh does for opbench's own time (`run --estimator`,
the minimum by default; `compare --estimator` applies min or median to any two files).
"""
import json
import math
import statistics
import sys


def quantile(values, q):
    """Linear interpolation between closest ranks (numpy's default), as opbench's stats."""
    v = sorted(values)
    k = (len(v) - 1) * q
    f = math.floor(k)
    c = min(f + 1, len(v) - 1)
    return v[f] + (v[c] - v[f]) * (k - f)


ESTIMATORS = {
    "median": lambda m: statistics.median(m),
    "mean": lambda m: statistics.mean(m),
    "p25": lambda m: quantile(m, 0.25),
    "p33": lambda m: quantile(m, 1 / 3),
    "min": min,
}

for folder in sys.argv[1:]:
    first = json.load(open(f"{folder}/run-1.json"))
    second = json.load(open(f"{folder}/run-2.json"))
    base = {c["case_id"]: c for c in first["cases"] if c["status"] == "ok"}
    for name, estimate in ESTIMATORS.items():
        changes = []
        for c in second["cases"]:
            if c["status"] != "ok" or c["case_id"] not in base:
                continue
            ratio = estimate(c["timing"]["repetition_medians"]) / estimate(base[c["case_id"]]["timing"]["repetition_medians"])
            changes.append(abs(ratio - 1))
        print(f"{folder}  {name:6}  cases {len(changes)}  median {quantile(changes, 0.5) * 100:.1f}%  "
              f"p90 {quantile(changes, 0.9) * 100:.1f}%  worst {max(changes) * 100:.1f}%")
