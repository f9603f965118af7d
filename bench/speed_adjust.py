#!/usr/bin/env python3
"""How much of an A/A's spread is the machine's speed: every pair of runs in A/A folders, as
measured and divided by the pair's speed canary ratio (`opbench compare --adjust-speed`).

    bench/speed_adjust.py [--estimator E] [--same-build] DIR [DIR ...]
        (DIR: a bench/aa.sh folder: run-K.json, baseline-run-K.json)

For each folder, every pair of its run files (this build's and the baseline's, each against each:
one machine and one hour, so any two are an A/A for the cases both measured the same way; with
--same-build only pairs of one build) and every case ok in both whose inputs were made the same
way (equal `timing.restored`; in-place cases of builds from before 2026-11-25 differ), the ratio
new/base of the case's time: as recorded, or with --estimator (fastest-third, min, median) made
again from its repetition medians, as `compare --estimator` does. Per pair: the
ratio of the two runs' fastest speed canaries (summary.slow_spells, the lowest thread count), the
median case ratio, and the median / p90 of |ratio - 1| and the cases past x1.25, as measured, divided
only where the canaries are more than 3% apart (compare's --speed-tolerance note), and divided
always (--adjust-speed). Then the same over all pairs: mean and worst median, pairs over 2%,
worst p90. The canary ratio's distance from the median case ratio says how well it tracks.
"""
import argparse
import itertools
import json
import math
import statistics
import sys

from pystats import OPBENCH_ESTIMATORS as ESTIMATORS, aa_runs, quantile

parser = argparse.ArgumentParser()
parser.add_argument("folders", nargs="+")
parser.add_argument("--estimator", choices=sorted(ESTIMATORS))
parser.add_argument("--same-build", action="store_true")
args = parser.parse_args()


def time_of(case):
    medians = case["timing"].get("repetition_medians")
    return ESTIMATORS[args.estimator](medians) if args.estimator and medians else case["estimate"]["time"]


def load(path):
    data = json.load(open(path))
    by_threads = data["summary"].get("slow_spells", {}).get("fastest_canary_by_threads") or {}
    canary = by_threads[min(by_threads, key=int)] if by_threads else None
    cases = {c["case_id"]: c for c in data["cases"] if c.get("status") == "ok"}
    return canary, cases


def spread(ratios, divisor):
    changes = [abs(r / divisor - 1) for r in ratios]
    far = sum(1 for r in ratios if abs(math.log(r / divisor)) > math.log(1.25))
    return statistics.median(changes), quantile(changes, 0.9), far


rows = {"as measured": [], "divided past 3%": [], "divided always": []}
tracking = []
for folder in args.folders:
    files = aa_runs(folder)
    runs = {path: load(path) for path in files}
    for a, b in itertools.combinations(files, 2):
        if args.same_build and ("baseline-run-" in a) != ("baseline-run-" in b):
            continue
        (ca, A), (cb, B) = runs[a], runs[b]
        if not ca or not cb:
            continue
        ratios = [time_of(B[k]) / time_of(A[k]) for k in A
                  if k in B and A[k]["timing"].get("restored", []) == B[k]["timing"].get("restored", [])]
        speed = cb / ca
        median_ratio = statistics.median(ratios)
        tracking.append(abs(speed / median_ratio - 1))
        cells = []
        for label, divisor in (("as measured", 1.0), ("divided past 3%", speed if abs(speed - 1) > 0.03 else 1.0),
                               ("divided always", speed)):
            m, p90, far = spread(ratios, divisor)
            rows[label].append((m, p90, far))
            cells.append(f"{m:.1%} / {p90:.1%} / {far}")
        name = lambda p: p[len(folder) + 1:-5]
        print(f"{folder} {name(a)} vs {name(b)}: {len(ratios)} cases, canary x{speed:.3f}, cases x{median_ratio:.3f}; "
              + "; ".join(f"{label} {cell}" for label, cell in zip(rows, cells)))
if not tracking:
    sys.exit("speed_adjust.py: no pair of runs with speed canaries in " + " ".join(args.folders))
print(f"\n{len(tracking)} pairs; the canary ratio within {statistics.mean(tracking):.1%} of the median case ratio on "
      f"average, {max(tracking):.1%} at most\n")
print("| over the pairs | mean median \\|Δ\\| | worst median | pairs over 2% | worst p90 | cases past ×1.25 |")
print("|---|---:|---:|---:|---:|---:|")
for label, values in rows.items():
    medians = [v[0] for v in values]
    print(f"| {label} | {statistics.mean(medians):.1%} | {max(medians):.1%} | {sum(1 for m in medians if m > 0.02)} "
          f"| {max(v[1] for v in values):.1%} | {sum(v[2] for v in values)} |")
