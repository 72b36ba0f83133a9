"""The op table of the recurrent-network ops (issue #10)."""
from __future__ import annotations

from .core import Case, OpSpec  # noqa: F401

SPECS: list = []
