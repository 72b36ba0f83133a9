"""The op table of the loss ops beyond the spine's cross-entropy pair (issue #10)."""
from __future__ import annotations

from .core import Case, OpSpec  # noqa: F401

SPECS: list = []
