"""Does the `(noisy)` label speak of the number a user reads? (issue #42, goal 7.) Over every
ordered pair of runs of identical code (A, B), each case of A is labelled as opbench labels it
(results::noisy, mirrored by pystats.noisy), and its number is checked against B's:
|log(B / A)|. A label that speaks of the number has its noisy cases repeat worse than its stable
ones. The label it replaced (the blocks' cv inside a typical repetition over 10%) is shown beside.

    python3 bench/noise_label.py RUN.json RUN.json [RUN.json ...]

Prints, per label, the share of cases it calls stable and, for stable and noisy cases apart, the
median and p90 of |B/A - 1| and the share within 5%."""
import itertools
import json
import math
import sys

from pystats import noisy, quantile


def block_cv_noisy(case):
    timing = case["timing"]
    return case["status"] == "ok" and timing["noise"] > max(0.10, timing.get("target_noise", 0))


def main(paths):
    if len(paths) < 2:
        sys.exit("noise_label.py: give two or more result files of identical code")
    runs = [{c["case_id"]: c for c in json.load(open(p))["cases"] if c["status"] == "ok"} for p in paths]
    rows = []
    for a, b in itertools.permutations(range(len(runs)), 2):
        for case_id, x in runs[a].items():
            y = runs[b].get(case_id)
            if y is None or not x["estimate"]["time"] or not y["estimate"]["time"]:
                continue
            rows.append((abs(math.log(y["estimate"]["time"] / x["estimate"]["time"])), noisy(x),
                         block_cv_noisy(x)))
    print(f"{len(paths)} runs, {len(rows)} (case, ordered pair) values\n")
    print("| label | stable | stable: median / p90 \\|B/A - 1\\| | within 5% | noisy: median / p90 | within 5% |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, column in (("uncertainty of the number (opbench's)", 1), ("blocks' cv (before)", 2)):
        stable = [r[0] for r in rows if not r[column]]
        loud = [r[0] for r in rows if r[column]]
        share = lambda v: sum(1 for d in v if d <= math.log(1.05)) / len(v) if v else float("nan")
        cell = lambda v: (f"{(math.exp(quantile(v, 0.5)) - 1) * 100:.1f}% / {(math.exp(quantile(v, 0.9)) - 1) * 100:.1f}%"
                          if v else "-")
        print(f"| {name} | {len(stable) / len(rows):.0%} | {cell(stable)} | {share(stable):.0%} "
              f"| {cell(loud)} | {share(loud):.0%} |")


if __name__ == "__main__":
    main(sys.argv[1:])
