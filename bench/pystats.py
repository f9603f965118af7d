"""The one statistics helper of the Python scripts under bench/ that read bench/aa.sh recordings
(estimators.py, speed_adjust.py): they run as `python bench/NAME.py`, so this file is on their path."""
import math


def quantile(values, q):
    """Linear interpolation between closest ranks (numpy's default), as opbench's stats."""
    v = sorted(values)
    k = (len(v) - 1) * q
    f = math.floor(k)
    c = min(f + 1, len(v) - 1)
    return v[f] + (v[c] - v[f]) * (k - f)
