"""What the profiler records: host events, each a named span of one thread,
with the kinds Paddle's profiler uses (``TracerEventType``)."""
from __future__ import annotations

import enum


class TracerEventType(enum.Enum):
    """The kind of a recorded event (Paddle's ``TracerEventType``). On the host,
    eager records ``Operator`` (every op and grad node), ``Forward`` (a
    ``Layer`` call), ``Backward`` (a backward pass), ``Optimization`` (an
    optimizer step), ``Dataloader`` (reading a batch), ``ProfileStep`` (one
    step between two ``Profiler.step`` calls) and ``PythonUserDefined``
    (:class:`eager.profiler.RecordEvent`); the device kinds are listed for
    Paddle code that names them."""

    Operator = 0
    Dataloader = 1
    ProfileStep = 2
    CudaRuntime = 3
    Kernel = 4
    Memcpy = 5
    Memset = 6
    UserDefined = 7
    OperatorInner = 8
    Forward = 9
    Backward = 10
    Optimization = 11
    Communication = 12
    PythonOp = 13
    PythonUserDefined = 14


class HostEvent:
    """One span: ``name``, ``kind`` (a :class:`TracerEventType`), ``start_ns``
    and ``end_ns`` (``time.perf_counter_ns`` clock), ``thread`` (native thread
    id) and ``args`` (a dict of extra facts, such as input shapes, or None)."""

    __slots__ = ("name", "kind", "start_ns", "end_ns", "thread", "args")

    def __init__(self, name: str, kind: TracerEventType, start_ns: int, end_ns: int, thread: int, args=None):
        self.name = name
        self.kind = kind
        self.start_ns = start_ns
        self.end_ns = end_ns
        self.thread = thread
        self.args = args

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns

    def __repr__(self) -> str:
        return (f"HostEvent({self.name!r}, {self.kind.name}, {self.duration_ns / 1e3:.3f} us, "
                f"thread {self.thread})")
