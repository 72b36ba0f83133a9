"""Paddle's ``paddle.device`` streams and events: :class:`Stream`, :class:`Event`,
:func:`current_stream`, :func:`set_stream`, :class:`stream_guard` and
:func:`synchronize`.

On a GPU they wrap CuPy's streams and events, and eager's GPU kernels run on
CuPy's current stream, so ``with stream_guard(s):`` runs the ops inside on
``s``. On the CPU every op has finished when it returns: :func:`synchronize`
returns at once, and a Stream or Event of the CPU is a TypeError, as Paddle's
("device should be gpu_place or custom_place").

>>> eager.device.synchronize()          # nothing to wait for on the CPU
>>> s = eager.device.Stream()            # doctest: +SKIP (needs a GPU)
>>> with eager.device.stream_guard(s):   # doctest: +SKIP
...     y = x + 1
"""
from __future__ import annotations

import importlib

from phi.common import GPUPlace, Place

from ..framework import current_place, parse_device

__all__ = ["Event", "Stream", "current_stream", "set_stream", "stream_guard", "synchronize"]


def _place(op: str, device) -> Place:
    """``device`` (None: the default device; an int GPU id, 'cpu', 'gpu:N' or a Place)."""
    if device is None:
        return current_place()
    if isinstance(device, int) and not isinstance(device, bool):
        if device < 0:
            raise ValueError(f"{op}: argument 'device' expected a non-negative GPU id, got {device}")
        device = GPUPlace(device)
    if not isinstance(device, (str, Place)):
        raise TypeError(f"{op}: argument 'device' expected None, an int GPU id, 'cpu', 'gpu:N' or a Place, got "
                        f"{type(device).__name__} {device!r}")
    return parse_device(op, device)


def _gpu_place(op: str, device) -> GPUPlace:
    place = _place(op, device)
    if not place.is_gpu_place():
        raise TypeError(f"{op}: device should be gpu_place or custom_place, got {place} (CPU work is "
                        f"synchronous: it needs no stream or event)")
    return place


def _cupy():
    return importlib.import_module("cupy")


def synchronize(device=None) -> None:
    """Waits until all work queued on ``device`` (None: the default device) has
    finished: every stream of a GPU; on the CPU, returns at once (each op has
    finished when it returns).

    >>> eager.device.synchronize("cpu")
    """
    place = _place("synchronize", device)
    if place.is_gpu_place():
        _cupy().cuda.Device(place.device_id).synchronize()


class Stream:
    """A GPU stream (Paddle's ``paddle.device.Stream(device=None, priority=2)``):
    ops run inside :class:`stream_guard` of it are queued on it. ``priority`` 1 is
    the device's highest, 2 the normal one.

    >>> s = eager.device.Stream()   # doctest: +SKIP (needs a GPU)
    >>> s.synchronize()             # doctest: +SKIP
    """

    def __init__(self, device=None, priority=2, stream_base=None):
        if priority not in (1, 2) or isinstance(priority, bool):
            raise ValueError(f"Stream: argument 'priority' expected 1 (high) or 2 (normal), got {priority!r}")
        if stream_base is not None:
            self.device = _gpu_place("Stream", device)
            self.stream = stream_base
            return
        self.device = _gpu_place("Stream", device)
        cupy = _cupy()
        with cupy.cuda.Device(self.device.device_id):
            if priority == 1:
                highest = cupy.cuda.runtime.deviceGetStreamPriorityRange()[1]
                self.stream = cupy.cuda.Stream(non_blocking=True, priority=highest)
            else:
                self.stream = cupy.cuda.Stream(non_blocking=True)

    @property
    def cuda_stream(self) -> int:
        """The raw cudaStream_t handle."""
        return int(self.stream.ptr)

    def synchronize(self) -> None:
        """Waits until the work queued on this stream has finished."""
        self.stream.synchronize()

    def query(self) -> bool:
        """Whether all the work queued on this stream has finished."""
        return bool(self.stream.done)

    def wait_event(self, event: "Event") -> None:
        """Makes the work queued on this stream after now wait for ``event``."""
        if not isinstance(event, Event):
            raise TypeError(f"Stream.wait_event: argument 'event' expected an eager.device.Event, got "
                            f"{type(event).__name__}")
        self.stream.wait_event(event.event)

    def wait_stream(self, stream: "Stream") -> None:
        """Makes the work queued on this stream after now wait for what ``stream``
        holds now."""
        if not isinstance(stream, Stream):
            raise TypeError(f"Stream.wait_stream: argument 'stream' expected an eager.device.Stream, got "
                            f"{type(stream).__name__}")
        self.wait_event(stream.record_event())

    def record_event(self, event: "Event | None" = None) -> "Event":
        """Records ``event`` (None: a new one) on this stream and returns it."""
        if event is None:
            event = Event(self.device)
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and self.stream is other.stream

    def __hash__(self):
        return id(self.stream)

    def __repr__(self):
        return f"<eager.device.Stream(device={self.device}, cuda_stream={self.cuda_stream:#x})>"


class Event:
    """A GPU event (Paddle's ``paddle.device.Event(device=None, enable_timing=False,
    blocking=False, interprocess=False)``): a point in a stream's work to wait for
    or to time.

    >>> start, end = eager.device.Event(enable_timing=True), eager.device.Event(enable_timing=True)  # doctest: +SKIP
    >>> start.record(); y = x @ x; end.record(); end.synchronize()  # doctest: +SKIP
    >>> start.elapsed_time(end)   # milliseconds                       doctest: +SKIP
    """

    def __init__(self, device=None, enable_timing=False, blocking=False, interprocess=False):
        for arg, value in (("enable_timing", enable_timing), ("blocking", blocking),
                           ("interprocess", interprocess)):
            if not isinstance(value, bool):
                raise TypeError(f"Event: argument '{arg}' expected a bool, got {value!r}")
        self.device = _gpu_place("Event", device)
        cupy = _cupy()
        with cupy.cuda.Device(self.device.device_id):
            self.event = cupy.cuda.Event(block=blocking, disable_timing=not enable_timing,
                                         interprocess=interprocess)

    def record(self, stream: Stream | None = None) -> None:
        """Records this event on ``stream`` (None: the current stream of its device)."""
        if stream is None:
            stream = current_stream(self.device)
        elif not isinstance(stream, Stream):
            raise TypeError(f"Event.record: argument 'stream' expected an eager.device.Stream or None, got "
                            f"{type(stream).__name__}")
        self.event.record(stream.stream)

    def query(self) -> bool:
        """Whether the work before this event has finished."""
        return bool(self.event.done)

    def synchronize(self) -> None:
        """Waits until the work before this event has finished."""
        self.event.synchronize()

    def elapsed_time(self, end_event: "Event") -> float:
        """Milliseconds between this event and ``end_event`` (both recorded, both
        made with enable_timing=True)."""
        if not isinstance(end_event, Event):
            raise TypeError(f"Event.elapsed_time: argument 'end_event' expected an eager.device.Event, got "
                            f"{type(end_event).__name__}")
        return float(_cupy().cuda.get_elapsed_time(self.event, end_event.event))

    def __repr__(self):
        return f"<eager.device.Event(device={self.device})>"


def current_stream(device=None) -> Stream:
    """The stream ops on GPU ``device`` (None: the default device) are queued on now.
    TypeError for the CPU, as Paddle's.

    >>> eager.device.current_stream()   # doctest: +SKIP (needs a GPU)
    """
    place = _gpu_place("current_stream", device)
    cupy = _cupy()
    with cupy.cuda.Device(place.device_id):
        return Stream(place, stream_base=cupy.cuda.get_current_stream())


def set_stream(stream: Stream) -> Stream:
    """Makes ``stream`` the current stream of its device; returns the previous one."""
    if not isinstance(stream, Stream):
        raise TypeError(f"set_stream: argument 'stream' expected an eager.device.Stream, got "
                        f"{type(stream).__name__}")
    previous = current_stream(stream.device)
    cupy = _cupy()
    with cupy.cuda.Device(stream.device.device_id):
        stream.stream.use()
    return previous


class stream_guard:  # noqa: N801  (Paddle's name)
    """``with stream_guard(stream):`` runs the ops inside on ``stream`` (None: no
    change), restoring the previous current stream on exit.

    >>> with eager.device.stream_guard(None):
    ...     y = eager.ones([2]) + 1
    """

    def __init__(self, stream: Stream | None = None):
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"stream_guard: argument 'stream' expected an eager.device.Stream or None, got "
                            f"{type(stream).__name__}")
        self.stream = stream
        self._previous = None

    def __enter__(self):
        if self.stream is not None:
            self._previous = set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc_info):
        if self.stream is not None:
            set_stream(self._previous)
        return False
