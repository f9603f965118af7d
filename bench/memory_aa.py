"""Is a case's memory the same on identical code? (issue #42: why results/memory_change.hpp's CPU
tolerance is 0 bytes.) Every pair of result files within each given folder is compared case by
case: `memory.peak_bytes`, `total_bytes` and `allocations`; every difference is printed.

    python3 bench/memory_aa.py GROUP [GROUP ...]

A GROUP is a folder (its *run-*.json, as bench/aa.sh writes them) or a quoted glob of result
files (e.g. 'results/compare-exit-42/plain-*.json'); pairs are made within each group only.
"""
import glob
import itertools
import json
import sys

KEYS = ("peak_bytes", "total_bytes", "allocations")


def main(folders):
    pairs = cases = 0
    differences = []
    for group in folders:
        files = sorted(glob.glob(group if "*" in group else f"{group}/*run-*.json"))
        runs = [{c["case_id"]: c.get("memory") for c in json.load(open(f))["cases"]} for f in files]
        for (a, x), (b, y) in itertools.combinations(zip(files, runs), 2):
            pairs += 1
            for case_id, m in x.items():
                n = y.get(case_id)
                if not m or not n:
                    continue
                cases += 1
                differences += [(a, b, case_id, k, m[k], n[k]) for k in KEYS if m[k] != n[k]]
    print(f"{pairs} pairs of runs, {cases} case pairs probed on both sides, "
          f"{len(differences)} difference(s) in {', '.join(KEYS)}")
    for d in differences:
        print("  %s vs %s: %s %s %s -> %s" % d)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("memory_aa.py: give one or more folders of result files of identical code")
    main(sys.argv[1:])
