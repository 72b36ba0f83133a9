"""The one check every generated op makes for the modes that watch ops: anomaly
mode (eager.autograd.detect_anomaly), automatic mixed precision
(eager.amp.auto_cast), the numerics debugging tools (eager.amp.debugging:
the tensor checker and operator statistics) and the profiler (eager.profiler).

A generated op starts, after its argument checks, with::

    if _modes.active and _modes.intercept():
        return _modes.call("matmul", _this.matmul, (x, y, transpose_x, transpose_y))

``MODES.active`` is a plain attribute (how many threads have a mode on), so the
fast path costs one attribute read. ``intercept()`` answers for the calling
thread only (a mode in one thread leaves the others alone): True when it has a
mode on, except exactly once after :meth:`OpModes.call` set the thread's bypass
flag, so that ``call`` can run the same op again, plainly, on its cast inputs.
``call`` casts the inputs per the thread's auto_cast state (recorded ``cast``
ops, so gradients flow back to the original dtype), runs the op, checks its
outputs for NaN/Inf in anomaly mode, counts it by the dtype it ran in when the
thread collects operator statistics, hands its outputs to the tensor
checker when the thread has one, and times the op when the profiler records.

The profiler is process-wide, not per thread: :meth:`OpModes.set_recorder`
installs its recorder in ``MODES.recorder`` (read, as one attribute, by the few
places that mark a span: ``Layer.__call__``, the backward engine, the
optimizer step and the DataLoader's ``__next__``) and, while it records ops,
counts itself once in ``active`` so every thread's ops come through
:meth:`OpModes.call`.
"""
from __future__ import annotations

import threading
import time

from ..tensor import Tensor


class _ThreadModes(threading.local):
    # Class attributes are each thread's defaults.
    bypass = False   # the next intercept() answers False (call() re-enters the op)
    anomaly = False  # this thread is in anomaly mode
    amp = None       # this thread's innermost enabled auto_cast state (eager.amp), or None
    counted = False  # this thread is counted in OpModes.active
    checker = None   # this thread's tensor checker (eager.amp.debugging), or None
    stats = None     # this thread's operator statistics {op: [fp16, bf16, fp32, other]}, or None


class OpModes:
    """Which threads watch their ops; see the module docstring."""

    __slots__ = ("active", "recorder", "_timing_ops", "_lock", "_thread", "_check_forward", "_check_debug")

    def __init__(self):
        self.active = 0
        self.recorder = None  # the profiler's recorder (eager.profiler), or None
        self._timing_ops = False  # the recorder times every op (counted once in active)
        self._lock = threading.Lock()
        self._thread = _ThreadModes()
        self._check_forward = None  # anomaly.check_forward, registered by eager.autograd.anomaly
        self._check_debug = None  # the tensor checker's check, registered by eager.amp.debugging

    # -- switching modes (per thread) ------------------------------------------
    def set_anomaly(self, on: bool) -> None:
        state = self._thread
        state.anomaly = bool(on)
        self._recount(state)

    def set_amp(self, amp):
        """Makes ``amp`` (an auto_cast state, or None for none) this thread's;
        returns the one it replaces (to restore on exit)."""
        state = self._thread
        previous, state.amp = state.amp, amp
        self._recount(state)
        return previous

    def amp(self):
        """This thread's auto_cast state, or None outside auto_cast."""
        return self._thread.amp

    def set_checker(self, checker):
        """Makes ``checker`` (a tensor checker, or None for none) this thread's;
        returns the one it replaces."""
        state = self._thread
        previous, state.checker = state.checker, checker
        self._recount(state)
        return previous

    def set_stats(self, stats):
        """Makes ``stats`` (a dict the ops count themselves in, or None to stop
        counting) this thread's; returns the one it replaces."""
        state = self._thread
        previous, state.stats = state.stats, stats
        self._recount(state)
        return previous

    def stats(self):
        """This thread's operator statistics being counted, or None."""
        return self._thread.stats

    def set_recorder(self, recorder, time_ops: bool) -> None:
        """Makes ``recorder`` (the profiler's, or None for none) receive the
        spans of every thread; with ``time_ops`` every op also goes through
        :meth:`call`, which times it with ``recorder.add_op(op, args, start_ns)``."""
        timing = recorder is not None and bool(time_ops)
        with self._lock:
            self.active += int(timing) - int(self._timing_ops)
            self.recorder = recorder
            self._timing_ops = timing

    def timing_ops(self):
        """The recorder that times every op, or None."""
        return self.recorder if self._timing_ops else None

    def debugging(self) -> bool:
        """Whether this thread has a tensor checker or collects operator statistics."""
        state = self._thread
        return state.checker is not None or state.stats is not None

    def checker(self):
        """This thread's tensor checker, or None."""
        return self._thread.checker

    def check_gradients(self, checker, node, grads) -> None:
        """The tensor checker's look at the gradients a grad node returned (the
        engine calls it for a backward without create_graph, whose nodes run
        their kernels directly)."""
        flat = tuple(g for slot in grads if slot is not None for g in slot)
        self._check_debug(checker, node.backward_op, flat)

    def _recount(self, state) -> None:
        on = state.anomaly or state.amp is not None or state.checker is not None or state.stats is not None
        if on != state.counted:
            with self._lock:
                self.active += 1 if on else -1
            state.counted = on

    def register_forward_check(self, check) -> None:
        self._check_forward = check

    def register_debug_check(self, check) -> None:
        """``check(checker, op, outputs)``: the tensor checker's look at an op's outputs."""
        self._check_debug = check

    # -- what the generated ops call -------------------------------------------
    def intercept(self) -> bool:
        """Whether the calling op should go through :meth:`call` (read after
        ``active`` was seen non-zero)."""
        state = self._thread
        if state.bypass:
            state.bypass = False
            return False
        return state.counted or self._timing_ops  # this thread has a mode on (kept by _recount)

    def call(self, op: str, fn, args: tuple, castable: bool = True, checked: bool = False):
        """Runs ``fn(*args)`` (the generated op named ``op``) under this thread's
        modes: inputs cast by auto_cast when ``castable`` (forward, out-of-place
        ops), outputs checked in anomaly mode (by the op itself when ``checked``:
        an op that does not return all its outputs checks them all), the op
        counted in the thread's operator statistics and its returned outputs
        handed to the thread's tensor checker; timed when the profiler records ops."""
        state = self._thread
        recorder = self.recorder if self._timing_ops else None
        if recorder is not None:
            start = time.perf_counter_ns()
        amp = state.amp
        if amp is not None and castable:
            if op == "linear":  # Paddle's dygraph linear: a matmul and an add, each cast by its own list
                return amp.linear(*args)
            args = amp.cast_inputs(op, args)
        state.bypass = True
        try:
            out = fn(*args)
        finally:
            state.bypass = False
        if state.anomaly and not checked:
            self._check_forward(op, flat_outputs(out))
        if state.stats is not None:
            count_op(state.stats, op, args, out)
        if state.checker is not None:
            self._check_debug(state.checker, op, flat_outputs(out))
        if recorder is not None:
            recorder.add_op(op, args, start)
        return out

    def anomaly(self) -> bool:
        """Whether this thread is in anomaly mode."""
        return self._thread.anomaly

    def check_forward(self, op: str, outputs) -> None:
        """Anomaly mode's check of an op's outputs (eager.autograd.anomaly)."""
        self._check_forward(op, outputs)


def flat_outputs(out) -> tuple:
    """An op's returned value as a flat tuple of its tensors (lists spread)."""
    if isinstance(out, Tensor) or out is None:
        return (out,)
    flat = []
    for item in out:
        if isinstance(item, (list, tuple)):
            flat.extend(item)
        else:
            flat.append(item)
    return tuple(flat)


# The column of an op's dtype in the operator statistics (Paddle's table:
# float16, bfloat16, float32, other).
_STATS_COLUMN = {"float16": 0, "bfloat16": 1, "float32": 2}


def _first_floating(values):
    for value in values:
        if isinstance(value, (list, tuple)):
            found = _first_floating(value)
            if found is not None:
                return found
        elif isinstance(value, Tensor) and value.impl.dtype.is_floating_point:
            return value.impl.dtype
    return None


def count_op(stats: dict, op: str, args: tuple, out) -> None:
    """Counts one call of ``op`` in ``stats`` by the dtype it ran in: its first
    floating-point input (after auto_cast's casts), else its first
    floating-point output (ops without tensor inputs, such as ``full``), else
    "other"."""
    dtype = _first_floating(args)
    if dtype is None:
        dtype = _first_floating(flat_outputs(out))
    row = stats.get(op)
    if row is None:
        row = stats[op] = [0, 0, 0, 0]
    row[3 if dtype is None else _STATS_COLUMN.get(dtype.value, 3)] += 1


MODES = OpModes()
