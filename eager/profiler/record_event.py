"""``RecordEvent``: a named span of user code in the profiler's trace."""
from __future__ import annotations

import contextlib
import time

from ..autograd.op_modes import MODES
from .events import TracerEventType


class RecordEvent(contextlib.ContextDecorator):
    """Marks a span of code as an event named ``name`` (kind ``event_type``,
    by default ``TracerEventType.PythonUserDefined``) in the trace of a
    recording :class:`Profiler`; it shows in the "UserDefined Summary" table.
    Use it as a context manager, a decorator, or call :meth:`begin` and
    :meth:`end`. Outside a recording profiler it records nothing.

    >>> from eager import profiler
    >>> with profiler.RecordEvent("load batch"):
    ...     x = eager.ones([4])
    """

    def __init__(self, name: str, event_type: TracerEventType = TracerEventType.PythonUserDefined):
        if not isinstance(name, str):
            raise TypeError(f"RecordEvent: argument 'name' expected a str, got {type(name).__name__}")
        if not isinstance(event_type, TracerEventType):
            raise TypeError(f"RecordEvent: argument 'event_type' expected a TracerEventType member, "
                            f"got {event_type!r}")
        self.name = name
        self.event_type = event_type
        self._start = None

    def __enter__(self):
        self.begin()
        return self

    def __exit__(self, *exc) -> None:
        self.end()

    def begin(self) -> None:
        """Marks the start of the span."""
        self._start = time.perf_counter_ns()

    def end(self) -> None:
        """Marks the end of the span (after :meth:`begin`; otherwise nothing)."""
        start, self._start = self._start, None
        recorder = MODES.recorder
        if start is not None and recorder is not None:
            recorder.add_event(self.name, self.event_type, start, time.perf_counter_ns())
