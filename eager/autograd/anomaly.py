"""Anomaly mode: find the op that first made a NaN or Inf, forward or backward.

Off by default, and then it costs one attribute read per op (the generated
ops' shared check of eager.autograd.op_modes, which also serves auto_cast). Inside
``detect_anomaly()`` GPU kernels also check the values they skip otherwise (to
avoid waiting for the device: ``ctx.check_values``), every op's outputs are checked, the Python stack of each
recorded op is kept (in a weak map, so nodes carry nothing when the mode is
off), and backward checks each gradient a grad node returns; the error names
the op or grad node, which output, and shows where the forward op was called.
"""
from __future__ import annotations

import functools
import os
import threading
import traceback
import weakref

from phi import api as phi_api
from phi.backends.gpu_context import VALUE_CHECKS

from ..errors import AnomalyError
from .op_modes import MODES


class _ThreadAnomaly(threading.local):
    # Class attributes are each thread's defaults.
    enabled = False
    depth = 0


class _AnomalyState:
    """Per thread, like grad mode: anomaly mode in one thread leaves others alone.

    Entering the mode turns it on in the ops' shared mode check (op_modes.MODES),
    whose ``active`` count is also what ``enabled`` reads first: a plain
    attribute, so the thread-local flag is read only when some thread watches
    its ops.
    """

    __slots__ = ("_thread",)

    def __init__(self):
        self._thread = _ThreadAnomaly()

    @property
    def enabled(self) -> bool:
        return MODES.active > 0 and self._thread.enabled

    def enter(self, check_nan: bool) -> None:
        state = self._thread
        was = state.enabled
        state.depth += 1
        state.enabled = check_nan or was
        if state.enabled and not was:
            MODES.set_anomaly(True)  # the ops of this thread go through MODES.call

    def exit(self) -> None:
        state = self._thread
        state.depth -= 1
        if state.depth == 0 and state.enabled:
            state.enabled = False
            MODES.set_anomaly(False)


ANOMALY = _AnomalyState()
_FORWARD_STACKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class detect_anomaly:
    """Context manager (and decorator) turning anomaly mode on.

    >>> with eager.autograd.detect_anomaly():
    ...     loss = eager.log(x).sum()   # raises if log made a NaN or Inf
    ...     loss.backward()             # raises naming the grad node that did
    """

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan

    def __enter__(self):
        ANOMALY.enter(self.check_nan)
        self._value_checks = VALUE_CHECKS.on
        VALUE_CHECKS.on = True  # GPU kernels check values too (they wait for the device)
        return self

    def __exit__(self, *exc):
        VALUE_CHECKS.on = self._value_checks
        ANOMALY.exit()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)

        return wrapper


def is_anomaly_enabled() -> bool:
    return ANOMALY.enabled


def _bad_values(tensor) -> str | None:
    nan, inf = phi_api.nan_inf_count(tensor.impl)
    if nan:
        return "NaN"
    if inf:
        return "Inf"
    return None


_INTERNAL = (os.path.join("eager", "generated", ""), os.path.join("eager", "autograd", "op_modes.py"),
             os.path.join("eager", "autograd", "anomaly.py"))


def _caller_stack() -> str:
    """The Python stack up to the call of the op: the frames of the op itself,
    of op_modes and of this module left out."""
    frames = traceback.extract_stack()
    while frames and any(part in frames[-1].filename for part in _INTERNAL):
        frames.pop()
    return "".join(traceback.format_list(frames))


def check_forward(op: str, outputs) -> None:
    """Called (through eager.autograd.op_modes.MODES.call) on the returned
    outputs of every generated op a thread in anomaly mode runs; checks only in
    a thread that is."""
    if not ANOMALY._thread.enabled:
        return
    stack = None
    for index, out in enumerate(outputs):
        if out is None:
            continue
        bad = _bad_values(out)
        if bad is not None:
            raise AnomalyError(
                f"{op}: output {index} ({out.dtype}{out.shape}) contains {bad} values "
                f"(anomaly mode). The op was called from:\n"
                + _caller_stack()
            )
        meta = out._meta
        if meta is not None and meta.node is not None and meta.node not in _FORWARD_STACKS:
            if stack is None:
                stack = _caller_stack()
            _FORWARD_STACKS[meta.node] = stack


MODES.register_forward_check(check_forward)


def check_backward(node, grads) -> None:
    """Called by the engine in anomaly mode on the gradients a node returned."""
    flat = [g for slot in grads if slot is not None for g in slot]
    for index, grad in enumerate(flat):
        if grad is None:
            continue
        bad = _bad_values(grad)
        if bad is not None:
            where = _FORWARD_STACKS.get(node)
            raise AnomalyError(
                f"{node.backward_op}: the gradient for input {index} of {node.forward_op or node.backward_op} "
                f"contains {bad} values (anomaly mode). "
                + (f"The forward op was called from:\n{where}" if where else
                   "The forward op ran before anomaly mode was on, so its stack is unknown.")
            )


def forward_stack(node) -> str | None:
    """Where the op that made ``node`` was called, if it ran in anomaly mode."""
    return _FORWARD_STACKS.get(node)
