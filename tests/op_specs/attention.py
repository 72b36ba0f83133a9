"""The op table of the dropout and attention ops (issue #10)."""
from __future__ import annotations

from .core import Case, OpSpec  # noqa: F401

SPECS: list = []
