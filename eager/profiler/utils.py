"""Paddle's ``paddle.profiler.utils``: whether a profiler is running
(``_is_profiler_used``, :func:`in_profiler_mode`), and :class:`RecordEvent` and
:func:`load_profiler_result` under this path too."""
from __future__ import annotations

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


__all__ = ["RecordEvent", "load_profiler_result", "in_profiler_mode", "wrap_optimizers"]
