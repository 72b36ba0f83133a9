"""Which steps the profiler records: ``ProfilerState`` and ``make_scheduler``."""
from __future__ import annotations

import enum
import numbers


class ProfilerState(enum.Enum):
    """A profiler's state at a step, as a scheduler returns it: ``CLOSED``
    (nothing recorded), ``READY`` (warming up: nothing kept), ``RECORD``
    (recording) and ``RECORD_AND_RETURN`` (the last step recorded before the
    trace is handed to ``on_trace_ready``)."""

    CLOSED = 0
    READY = 1
    RECORD = 2
    RECORD_AND_RETURN = 3


def _count(name: str, value, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"make_scheduler: argument '{name}' expected an int, got {type(value).__name__}")
    if value < least:
        raise ValueError(f"make_scheduler: argument '{name}' expected an int >= {least}, got {value}")
    return int(value)


class Schedule:
    """A step -> :class:`ProfilerState` function made by :func:`make_scheduler`."""

    __slots__ = ("closed", "ready", "record", "repeat", "skip_first")

    def __init__(self, closed: int, ready: int, record: int, repeat: int, skip_first: int):
        self.closed, self.ready, self.record = closed, ready, record
        self.repeat, self.skip_first = repeat, skip_first

    def __call__(self, step: int) -> ProfilerState:
        if isinstance(step, bool) or not isinstance(step, numbers.Integral) or step < 0:
            raise ValueError(f"scheduler: the step expected an int >= 0, got {step!r}")
        if step < self.skip_first:
            return ProfilerState.CLOSED
        step -= self.skip_first
        period = self.closed + self.ready + self.record
        if self.repeat and step // period >= self.repeat:
            return ProfilerState.CLOSED
        phase = step % period
        if phase < self.closed:
            return ProfilerState.CLOSED
        if phase < self.closed + self.ready:
            return ProfilerState.READY
        return ProfilerState.RECORD_AND_RETURN if phase == period - 1 else ProfilerState.RECORD

    def __repr__(self) -> str:
        return (f"make_scheduler(closed={self.closed}, ready={self.ready}, record={self.record}, "
                f"repeat={self.repeat}, skip_first={self.skip_first})")


def make_scheduler(*, closed: int, ready: int, record: int, repeat: int = 0, skip_first: int = 0) -> Schedule:
    """A scheduler for :class:`eager.profiler.Profiler`: after ``skip_first``
    steps, cycles of ``closed`` steps off, ``ready`` steps warming up and
    ``record`` steps recorded (the last of them ``RECORD_AND_RETURN``, when the
    trace goes to ``on_trace_ready``), ``repeat`` times (0: without end).

    >>> from eager import profiler
    >>> schedule = profiler.make_scheduler(closed=1, ready=1, record=2, repeat=1)
    >>> [schedule(step).name for step in range(5)]
    ['CLOSED', 'READY', 'RECORD', 'RECORD_AND_RETURN', 'CLOSED']
    """
    return Schedule(_count("closed", closed, 0), _count("ready", ready, 0), _count("record", record, 1),
                    _count("repeat", repeat, 0), _count("skip_first", skip_first, 0))


def always_record(step: int) -> ProfilerState:
    """The default scheduler: every step is recorded."""
    return ProfilerState.RECORD
