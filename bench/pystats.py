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


def uncertainty(case):
    """results::uncertainty (src/results/estimate.cpp): how far apart the repetition medians a
    case's number is made from lie; None with fewer than two."""
    m = sorted(v for v in case["timing"]["repetition_medians"] if v and v > 0)
    if len(m) < 2:
        return None
    estimate = case["estimate"]
    if estimate.get("estimator") == "median":
        return (estimate["high"] - estimate["low"]) / 2 / estimate["median"] if estimate["median"] else None
    taken = 1 if estimate.get("estimator") == "min" else len(m) // 3
    k = min(len(m), max(2, taken))
    return (m[k - 1] - m[0]) / m[0]


NOISY_UNCERTAINTY = 0.10  # results::k_noisy_uncertainty
NOISY_CV = 0.10  # results::k_noisy_cv


def noisy(case):
    """results::noisy: the uncertainty past 10%; with one repetition, the block cv past 10% (or
    past the target, when looser)."""
    if case["status"] != "ok":
        return False
    u = uncertainty(case)
    if u is not None:
        return u > NOISY_UNCERTAINTY
    timing = case["timing"]
    return timing["noise"] > max(NOISY_CV, timing.get("target_noise", 0))
