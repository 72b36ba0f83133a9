"""The op table of the activation ops beyond the spine's relu/sigmoid/tanh/softmax (issue #10)."""
from __future__ import annotations

from .core import Case, OpSpec  # noqa: F401

SPECS: list = []
