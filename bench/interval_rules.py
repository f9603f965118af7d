"""Replays candidate interval and stopping rules on bench/aa.sh recordings of the default suite
(runs of 3 processes x 2 repetitions, every case in every process) and prints, per rule, what
issue 62's goals ask: how often the other run's time of a pair fell inside a run's interval, the
median and p90 half-width, the share of cases past ±5%, the A/A of the times the rule would have
made (median / p90 |Δ|), and the processes a case would have taken on average. How
results::interval_of's constants were chosen (docs/reproducibility-log.md, "An interval that
covers the next run").

    python bench/interval_rules.py [--only PREFIX] DIR [DIR ...]

Pairs: within each folder, every two runs of one build (run-K.json, baseline-run-K.json), each
way; --only baseline- (or --only "") takes one build's runs alone (a build that stops cases early
has no six repetitions to replay).
A rule: half_width = max(FLOOR, K x d), d from the processes' fastest repetition medians p(1) <=
p(2) <= p(3): `next` (p(2) - p(1)) / p(1), or `range` (p(3) - p(1)) / p(1); stopping: the first two
processes' interval within TARGET ends the case with their four repetitions ("-": never)."""
import glob
import itertools
import json
import os
import statistics
import sys

from pystats import fastest_third, quantile


def processes_fastest(medians):
    return sorted(min(medians[i:i + 2]) for i in range(0, len(medians), 2))


def interval(medians, floor, k, measure):
    p = processes_fastest(medians)
    d = ((p[1] if measure == "next" else p[-1]) - p[0]) / p[0]
    return fastest_third(medians), max(floor, k * d)


def made(medians, floor, k, measure, target, allowance=0.0):
    """(time, half-width, processes) as the rule would have ended the case; `allowance`: the run's
    (no half-width under it)."""
    if target is not None:
        t, h = interval(medians[:4], floor, k, measure)
        if max(h, allowance) <= target:
            return t, max(h, allowance), 2
    t, h = interval(medians, floor, k, measure)
    return t, max(h, allowance), 3


def run_allowance(run, floor, k, measure, use):
    """results::run_allowance over a run's cases after two processes: the median of their own
    widths (K x d), at least FLOOR; 0 when the rule has none."""
    if not use:
        return 0.0
    widths = [interval(m[:4], 0.0, k, measure)[1] for m in run.values()]
    return max(floor, statistics.median(widths))


def main(folders, prefixes):
    pairs = []
    for folder in folders:
        names = []
        for prefix in prefixes:
            found = sorted(glob.glob(f"{folder}/{prefix}run-*.json"))
            names += [(a, b) for a, b in itertools.combinations(
                [os.path.basename(f)[:-5] for f in found
                 if os.path.basename(f).startswith(prefix + "run-")], 2)]
        for a, b in names:
            runs = []
            for name in (a, b):
                cases = json.load(open(f"{folder}/{name}.json"))["cases"]
                runs.append({c["case_id"]: c["timing"]["repetition_medians"] for c in cases
                             if c["status"] == "ok" and len(c["timing"]["repetition_medians"]) == 6})
            pairs += [(runs[0], runs[1]), (runs[1], runs[0])]
    print(f"{len(pairs) // 2} pairs of runs from {', '.join(folders)}\n")
    print("| d | floor | K | run allowance | target | inside | median / p90 half-width | past ±5% "
          "| A/A median / p90 | processes |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for measure, floor, k, use, target in itertools.product(
            ("next", "range"), (0.01, 0.015, 0.02), (1.0, 1.5, 2.0), (False, True), (None, 0.02, 0.03)):
                    inside, widths, deltas, processes = [], [], [], []
                    for a, b in pairs:
                        allow_a = run_allowance(a, floor, k, measure, use)
                        allow_b = run_allowance(b, floor, k, measure, use)
                        for case, medians in a.items():
                            if case not in b:
                                continue
                            t, h, n = made(medians, floor, k, measure, target, allow_a)
                            tb = made(b[case], floor, k, measure, target, allow_b)[0]
                            inside.append(abs(tb / t - 1) <= h)
                            widths.append(h)
                            deltas.append(abs(tb / t - 1))
                            processes.append(n)
                    print(f"| {measure} | {floor:.3f} | {k:.1f} | {'median' if use else '-'} "
                          f"| {'-' if target is None else f'{target:.2f}'} "
                          f"| {sum(inside) / len(inside) * 100:.1f}% "
                          f"| {statistics.median(widths) * 100:.1f}% / {quantile(widths, 0.9) * 100:.1f}% "
                          f"| {sum(w > 0.05 for w in widths) / len(widths) * 100:.1f}% "
                          f"| {statistics.median(deltas) * 100:.2f}% / {quantile(deltas, 0.9) * 100:.2f}% "
                          f"| {statistics.mean(processes):.2f} |")


if __name__ == "__main__":
    args = sys.argv[1:]
    prefixes = ["", "baseline-"]
    if args[:1] == ["--only"]:
        prefixes, args = [args[1]], args[2:]
    main(args, prefixes)
