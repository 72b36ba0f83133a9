"""Anomaly mode: find the op that first made a NaN or Inf, forward or backward.

Off by default, and then it costs one attribute read per op. Inside
``detect_anomaly()`` every op's outputs are checked, the Python stack of each
recorded op is kept (in a weak map, so nodes carry nothing when the mode is
off), and backward checks each gradient a grad node returns; the error names
the op or grad node, which output, and shows where the forward op was called.
"""
from __future__ import annotations

import functools
import threading
import traceback
import weakref

from phi import api as phi_api

from ..errors import AnomalyError


class _AnomalyState(threading.local):
    """Per thread, like grad mode: anomaly mode in one thread leaves others alone."""

    # Class attributes are each thread's defaults.
    enabled = False
    depth = 0


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
        ANOMALY.depth += 1
        ANOMALY.enabled = self.check_nan or ANOMALY.enabled
        return self

    def __exit__(self, *exc):
        ANOMALY.depth -= 1
        if ANOMALY.depth == 0:
            ANOMALY.enabled = False
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


def check_forward(op: str, outputs) -> None:
    """Called by every generated op in anomaly mode, after it ran."""
    stack = None
    for index, out in enumerate(outputs):
        if out is None:
            continue
        bad = _bad_values(out)
        if bad is not None:
            raise AnomalyError(
                f"{op}: output {index} ({out.dtype}{out.shape}) contains {bad} values "
                f"(anomaly mode). The op was called from:\n"
                + "".join(traceback.format_stack()[:-2])
            )
        meta = out._meta
        if meta is not None and meta.node is not None and meta.node not in _FORWARD_STACKS:
            if stack is None:
                stack = "".join(traceback.format_stack()[:-2])
            _FORWARD_STACKS[meta.node] = stack


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
