"""The recorder a started profiler installs in the ops' shared mode check
(``eager.autograd.op_modes.MODES``): the hooks in ``Layer.__call__``, the
backward engine, the optimizer step and the DataLoader call
:meth:`Recorder.add_span`, and every op (and grad node) calls
:meth:`Recorder.add_op` while the profiler records."""
from __future__ import annotations

import threading
import time

from ..tensor import Tensor
from .events import HostEvent, TracerEventType
from .step_timer import StepTimer


def _shape_and_dtype(value):
    """(shape, dtype) of a Tensor argument, lists of them as lists, None otherwise."""
    if isinstance(value, Tensor):
        return list(value.impl.dims), value.impl.dtype.value
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, Tensor) or v is None for v in value):
        pairs = [_shape_and_dtype(v) if v is not None else (None, None) for v in value]
        return [p[0] for p in pairs], [p[1] for p in pairs]
    return None


class Recorder:
    """Collects host events for one profiler while ``recording`` is set, and
    feeds the DataLoader's reading time to the step ``timer`` always."""

    def __init__(self, timer: StepTimer, record_shapes: bool = False, sync=None):
        self.timer = timer
        self.record_shapes = record_shapes
        self._sync = sync  # a GPU synchronize before reading an op's end time, or None
        self.recording = False
        self.events = []  # list.append is atomic: threads add without a lock

    def add_span(self, name: str, kind: str, start_ns: int) -> None:
        """A span that began at ``start_ns`` ends now; ``kind`` names a
        :class:`TracerEventType` member."""
        end = time.perf_counter_ns()
        if kind == "Dataloader":
            self.timer.add_reader(end - start_ns)
        if self.recording:
            self.events.append(HostEvent(name, TracerEventType[kind], start_ns, end, threading.get_native_id()))

    def add_event(self, name: str, kind: TracerEventType, start_ns: int, end_ns: int, args=None) -> None:
        """An event timed by its caller (RecordEvent, the profiler's steps)."""
        if self.recording:
            self.events.append(HostEvent(name, kind, start_ns, end_ns, threading.get_native_id(), args))

    def add_op(self, op: str, args, start_ns: int) -> None:
        """The op ``op`` called with ``args`` (its inputs and attributes, or a
        grad node's incoming gradients) began at ``start_ns`` and ends now."""
        if self._sync is not None:
            self._sync()
        end = time.perf_counter_ns()
        if not self.recording:
            return
        facts = None
        if self.record_shapes:
            shapes, dtypes = [], []
            for value in args:
                found = _shape_and_dtype(value)
                if found is not None:
                    shapes.append(found[0])
                    dtypes.append(found[1])
            facts = {"input_shapes": shapes, "input_dtypes": dtypes}
        self.events.append(HostEvent(op, TracerEventType.Operator, start_ns, end, threading.get_native_id(), facts))
