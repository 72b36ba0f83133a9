"""Name scopes recorded on grad nodes, so a picture of the graph can group them.

``eager.viz.name_scope("encoder")`` (and nn.Layer calls) push onto this
thread-local stack; each grad node made inside remembers the tuple of names.
"""
from __future__ import annotations

import contextlib
import threading


class _ScopeState(threading.local):
    current: tuple = ()


SCOPE = _ScopeState()


@contextlib.contextmanager
def name_scope(name: str):
    """Grad nodes made inside carry ``name`` (nested scopes make a path)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name_scope: name expected a non-empty str, got {name!r}")
    previous = SCOPE.current
    SCOPE.current = previous + (name,)
    try:
        yield
    finally:
        SCOPE.current = previous


def current_scope() -> tuple:
    return SCOPE.current
