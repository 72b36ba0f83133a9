"""The one check every generated op makes for the modes that watch ops: anomaly
mode (eager.autograd.detect_anomaly) and automatic mixed precision
(eager.amp.auto_cast).

A generated op starts, after its argument checks, with::

    if _modes.active and _modes.intercept():
        return _modes.call("matmul", _this.matmul, (x, y, transpose_x, transpose_y))

``MODES.active`` is a plain attribute (how many threads have a mode on), so the
fast path costs one attribute read. ``intercept()`` answers for the calling
thread only (a mode in one thread leaves the others alone): True when it has a
mode on, except exactly once after :meth:`OpModes.call` set the thread's bypass
flag, so that ``call`` can run the same op again, plainly, on its cast inputs.
``call`` casts the inputs per the thread's auto_cast state (recorded ``cast``
ops, so gradients flow back to the original dtype), runs the op, and checks its
outputs for NaN/Inf in anomaly mode.
"""
from __future__ import annotations

import threading

from ..tensor import Tensor


class _ThreadModes(threading.local):
    # Class attributes are each thread's defaults.
    bypass = False   # the next intercept() answers False (call() re-enters the op)
    anomaly = False  # this thread is in anomaly mode
    amp = None       # this thread's innermost enabled auto_cast state (eager.amp), or None
    counted = False  # this thread is counted in OpModes.active


class OpModes:
    """Which threads watch their ops; see the module docstring."""

    __slots__ = ("active", "_lock", "_thread", "_check_forward")

    def __init__(self):
        self.active = 0
        self._lock = threading.Lock()
        self._thread = _ThreadModes()
        self._check_forward = None  # anomaly.check_forward, registered by eager.autograd.anomaly

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

    def _recount(self, state) -> None:
        on = state.anomaly or state.amp is not None
        if on != state.counted:
            with self._lock:
                self.active += 1 if on else -1
            state.counted = on

    def register_forward_check(self, check) -> None:
        self._check_forward = check

    # -- what the generated ops call -------------------------------------------
    def intercept(self) -> bool:
        """Whether the calling op should go through :meth:`call` (read after
        ``active`` was seen non-zero)."""
        state = self._thread
        if state.bypass:
            state.bypass = False
            return False
        return state.anomaly or state.amp is not None

    def call(self, op: str, fn, args: tuple, castable: bool = True, checked: bool = False):
        """Runs ``fn(*args)`` (the generated op named ``op``) under this thread's
        modes: inputs cast by auto_cast when ``castable`` (forward, out-of-place
        ops), outputs checked in anomaly mode (by the op itself when ``checked``:
        an op that does not return all its outputs checks them all)."""
        state = self._thread
        amp = state.amp
        if amp is not None and castable:
            args = amp.cast_inputs(op, args)
        state.bypass = True
        try:
            out = fn(*args)
        finally:
            state.bypass = False
        if state.anomaly and not checked:
            self._check_forward(op, flat_outputs(out))
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


MODES = OpModes()
