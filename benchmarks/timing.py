"""The timing helpers benchmarks/run.py and benchmarks/models.py share.

``pin_threads()`` sets the BLAS/OpenMP thread variables to 1 and re-executes the
running script when they were not already set (thread pools are sized when
NumPy and PyTorch load, so this must run before either is imported).
``measure_many`` times several statements with timeit, interleaving their
repeats, on ``CLOCK`` (this process's CPU time unless a script sets it).
"""
from __future__ import annotations

import os
import statistics
import sys
import time
import timeit

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def pin_threads() -> None:
    """Sets every thread variable to 1 and restarts the script in a fresh
    interpreter when one was not 1 already (call it from ``__main__`` only)."""
    if any(os.environ.get(v) != "1" for v in THREAD_VARS):
        for name in THREAD_VARS:
            os.environ[name] = "1"
        os.execv(sys.executable, [sys.executable] + sys.argv)


class Timing:
    """Per-call seconds over several repeats."""

    def __init__(self, per_call):
        self.per_call = per_call
        self.min = min(per_call)
        self.median = statistics.median(per_call)


# The clock of every host figure: this process's CPU time by default, which
# leaves out the time the shared machine gives other processes (their cache
# traffic still counts); scripts set it from --clock.
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
CLOCK = CLOCKS["cpu"]


def _timer(stmt, setup_globals=None):
    if isinstance(stmt, str):
        return timeit.Timer(stmt, globals=setup_globals, timer=CLOCK)
    return timeit.Timer(stmt, timer=CLOCK)


def _calibrate(timer, budget: float) -> int:
    """How many calls make one repeat last about `budget` seconds."""
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= budget / 10:
            break
        number *= 10 if elapsed < budget / 100 else 2
    return max(1, round(number * budget / elapsed))


def measure_many(stmts: dict, *, budget: float, repeat: int, per: int = 1) -> dict:
    """Times several statements (name -> str or callable, or (str, globals)) with
    timeit, interleaving their repeats (a, b, c, a, b, c, ...) so that a change in
    machine load during the run affects eager and its baselines alike. Returns
    name -> Timing of seconds per call divided by `per` (e.g. per node)."""
    timers = {name: _timer(stmt) if not isinstance(stmt, tuple) else _timer(*stmt)
              for name, stmt in stmts.items()}
    numbers = {name: _calibrate(timer, budget) for name, timer in timers.items()}
    runs = {name: [] for name in timers}
    for _ in range(repeat):
        for name, timer in timers.items():
            runs[name].append(timer.timeit(numbers[name]) / numbers[name] / per)
    return {name: Timing(values) for name, values in runs.items()}


def load_torch(disabled: bool):
    """PyTorch pinned to one thread, or None when disabled or not installed."""
    if disabled:
        return None
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch
