"""The op table of the embedding ops, whose sparse gradient is a SelectedRows (issue #10)."""
from __future__ import annotations

from .core import Case, OpSpec  # noqa: F401

SPECS: list = []
