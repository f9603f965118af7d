"""The one statistics helper of the Python scripts under bench/ that read bench/aa.sh recordings
(estimators.py, speed_adjust.py, repetitions.py): they run as `python bench/NAME.py`, so this file is on their path.

It mirrors src/results/estimate.cpp (include/opbench/results/estimate.hpp), the one file that
makes a case's number in opbench; a change there is made here too."""
import glob
import math
import statistics


def quantile(values, q):
    """Linear interpolation between closest ranks (numpy's default), as opbench's stats."""
    v = sorted(values)
    k = (len(v) - 1) * q
    f = math.floor(k)
    c = min(f + 1, len(v) - 1)
    return v[f] + (v[c] - v[f]) * (k - f)


def aa_runs(folder):
    """The run files of a bench/aa.sh folder, the baseline's baseline-run-K.json and this build's
    run-K.json, in name order."""
    return sorted(glob.glob(f"{folder}/run-*.json") + glob.glob(f"{folder}/baseline-run-*.json"))


def fastest_third(medians):
    """opbench's default estimator (`run --estimator fastest-third`, results::estimate_with in
    src/results/estimate.cpp): the
    mean of the fastest third of a case's repetition medians, the fastest alone below three."""
    return statistics.mean(sorted(medians)[:max(1, len(medians) // 3)])


# opbench's estimators by their `--estimator` names.
OPBENCH_ESTIMATORS = {"fastest-third": fastest_third, "min": min, "median": statistics.median}
