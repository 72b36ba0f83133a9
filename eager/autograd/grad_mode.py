"""Whether ops record the graph: a thread-local switch, with context managers
that also work as decorators."""
from __future__ import annotations

import functools
import inspect

from .thread_state import THREAD

# The thread-local grad mode: ``enabled``, and ``saved`` (the modes to restore, one per
# open `with` block of this thread). Shared with the name scope and the saved-tensor
# hooks, so a recorded op reads one thread-local object (see thread_state).
STATE = THREAD


def is_grad_enabled() -> bool:
    """Whether ops run now record the autograd graph (in this thread)."""
    return STATE.enabled


class _GradModeSwitch:
    """Sets grad mode for a ``with`` block or a decorated function, then restores it."""

    mode: bool

    def __enter__(self):
        STATE.saved.append(STATE.enabled)
        STATE.enabled = self.mode

    def __exit__(self, *exc):
        STATE.enabled = STATE.saved.pop()
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

        # inspect.getfullargspec does not follow __wrapped__, but reads __signature__.
        wrapper.__signature__ = inspect.signature(fn)
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
        # The mode to restore is the one before construction, which already switched it.
        STATE.saved.append(self._previous)
        STATE.enabled = self.mode
