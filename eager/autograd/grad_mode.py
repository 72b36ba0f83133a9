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
        if not callable(fn):
            raise TypeError(f"{type(self).__name__}: used as a decorator, it expected a function, "
                            f"got {type(fn).__name__}")
        mode = self.mode

        if inspect.isgeneratorfunction(fn):
            def wrapper(*args, **kwargs):  # a generator function too, as fn is
                return (yield from _run_generator(fn(*args, **kwargs), mode))
        else:
            def wrapper(*args, **kwargs):
                previous = STATE.enabled
                STATE.enabled = mode
                try:
                    return fn(*args, **kwargs)
                finally:
                    STATE.enabled = previous

        wrapper = functools.wraps(fn)(wrapper)
        # inspect.getfullargspec does not follow __wrapped__, but reads __signature__.
        wrapper.__signature__ = inspect.signature(fn)
        return wrapper


def _run_generator(gen, mode: bool):
    """Runs ``gen`` with grad mode ``mode`` each time it resumes, and the caller's
    mode between resumptions: a decorated generator function's body runs under
    the mode (calling it only builds the generator, so a plain wrapper would
    switch the mode for nothing), while the code iterating it keeps its own."""
    to_send, to_throw = None, None
    while True:
        previous = STATE.enabled
        STATE.enabled = mode
        try:
            if to_throw is not None:
                error, to_throw = to_throw, None
                item = gen.throw(error)
            else:
                item = gen.send(to_send)
        except StopIteration as stop:
            return stop.value
        finally:
            STATE.enabled = previous
        try:
            to_send = yield item
        except GeneratorExit:
            STATE.enabled, previous = mode, STATE.enabled
            try:
                gen.close()
            finally:
                STATE.enabled = previous
            raise
        except BaseException as error:  # thrown in by the caller: passed on to gen
            to_throw = error


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
    Used as a decorator (``@set_grad_enabled(False)``) it switches the mode only
    while the function runs.
    """

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled: mode expected a bool, got {mode!r}")
        self.mode = mode
        self._previous = STATE.enabled
        STATE.enabled = mode

    def __call__(self, fn):
        # As a decorator it switches the mode only while the function runs: the
        # switch made at construction is undone when it decorates.
        wrapper = super().__call__(fn)
        STATE.enabled = self._previous
        return wrapper

    def __enter__(self):
        # The mode to restore is the one before construction, which already switched it.
        STATE.saved.append(self._previous)
        STATE.enabled = self.mode
