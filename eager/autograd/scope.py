"""Name scopes recorded on grad nodes, so a picture of the graph can group them.

``eager.viz.name_scope("encoder")`` (and nn.Layer calls) push onto this
thread-local stack; each grad node made inside remembers the tuple of names.
"""
from __future__ import annotations

from .thread_state import THREAD

# The thread-local name-scope path, ``current`` (a tuple of names); the same object as
# grad mode's, so a recorded op reads one thread-local object (see thread_state).
SCOPE = THREAD


class name_scope:
    """Grad nodes made inside carry ``name`` (nested scopes make a path).

    A class rather than a generator-based context manager: every nn.Layer call
    enters one, and this costs a third as much.
    """

    __slots__ = ("name", "_previous")

    def __init__(self, name: str):
        if not isinstance(name, str) or not name:
            raise ValueError(f"name_scope: name expected a non-empty str, got {name!r}")
        self.name = name

    def __enter__(self):
        self._previous = SCOPE.current
        SCOPE.current = self._previous + (self.name,)
        return self

    def __exit__(self, *exc):
        SCOPE.current = self._previous
        return False


def current_scope() -> tuple:
    return SCOPE.current
