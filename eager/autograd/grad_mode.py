"""Whether ops record the graph: a thread-local switch, with context managers
that also work as decorators."""
from __future__ import annotations

import functools
import threading


class _GradState(threading.local):
    # Class attributes are each thread's defaults: a new thread starts recording.
    enabled = True


STATE = _GradState()


def is_grad_enabled() -> bool:
    """Whether ops run now record the autograd graph (in this thread)."""
    return STATE.enabled


class _GradModeSwitch:
    """Sets grad mode for a ``with`` block or a decorated function, then restores it."""

    mode: bool

    def __enter__(self):
        self._previous = STATE.enabled
        STATE.enabled = self.mode

    def __exit__(self, *exc):
        STATE.enabled = self._previous
        return False

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            previous = STATE.enabled
            STATE.enabled = mode
            try:
                return fn(*args, **kwargs)
            finally:
                STATE.enabled = previous

        return wrapper


class no_grad(_GradModeSwitch):
    """Ops run inside do not record the graph.

    >>> with eager.no_grad():
    ...     w -= 0.1 * w.grad
    """

    mode = False


class enable_grad(_GradModeSwitch):
    """Ops run inside record the graph, even within ``no_grad``."""

    mode = True


class set_grad_enabled(_GradModeSwitch):
    """Turns recording on or off: ``with set_grad_enabled(False): ...``.

    Like PyTorch's, it takes effect at construction too, so a bare call
    ``set_grad_enabled(False)`` switches the mode for the rest of the thread.
    """

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled: mode expected a bool, got {mode!r}")
        self.mode = mode
        self._previous = STATE.enabled
        STATE.enabled = mode

    def __enter__(self):
        # _previous was taken at construction, before the mode was switched.
        STATE.enabled = self.mode
