"""Paddle's ``paddle.profiler.utils``: whether a profiler is running
(``_is_profiler_used``, :func:`in_profiler_mode`), the iteration window of
:func:`job_schedule_profiler_range`, and :class:`RecordEvent` and
:func:`load_profiler_result` under this path too."""
from __future__ import annotations

import contextlib
import sys

from .record_event import RecordEvent
from .trace_file import load_profiler_result

# True from a (not timer-only) Profiler.start() to its stop(), as Paddle's flag.
_is_profiler_used = False


def in_profiler_mode() -> bool:
    """Whether a Profiler (not timer-only) is running."""
    return _is_profiler_used


def wrap_optimizers() -> None:
    """Paddle wraps every optimizer's ``step`` in a RecordEvent here; eager's
    optimizers record their steps while profiling already, so this does nothing."""


@contextlib.contextmanager
def job_schedule_profiler_range(iter_id, start, end, exit_after_prof=True):
    """A context that yields whether iteration ``iter_id`` lies in ``[start, end)``
    (False for every iteration when ``start >= end``); leaving the one of iteration
    ``end - 1`` ends the program (``sys.exit()``) when ``exit_after_prof``, as
    Paddle's training jobs stop once their profiled window is done.

    >>> from eager.profiler.utils import job_schedule_profiler_range
    >>> [job_schedule_profiler_range(i, 1, 3, exit_after_prof=False).__enter__() for i in range(4)]
    [False, True, True, False]
    """
    if start >= end:
        yield False
        return
    try:
        yield start <= iter_id < end
    finally:
        if iter_id == end - 1 and exit_after_prof:
            sys.exit()


__all__ = ["RecordEvent", "load_profiler_result", "in_profiler_mode", "wrap_optimizers",
           "job_schedule_profiler_range"]
