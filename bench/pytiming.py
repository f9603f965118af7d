"""The one timing helper of the Python scripts under bench/ (placement.py, special_values.py,
huge_pages_bound.py): they run as `python bench/NAME.py`, so this file is on their path."""
import time


def fastest(f, calls):
    """The fastest of `calls` calls of f() [s], by the wall clock, and the last call's result."""
    best, out = float("inf"), None
    for _ in range(calls):
        start = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - start)
    return best, out
