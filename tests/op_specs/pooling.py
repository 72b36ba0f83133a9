"""The op table of the pooling ops: max/avg/adaptive pooling, unfold and fold (issue #10)."""
from __future__ import annotations

from .core import Case, OpSpec  # noqa: F401

SPECS: list = []
