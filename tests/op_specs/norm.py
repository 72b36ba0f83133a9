"""The op table of the normalization ops: batch_norm, layer_norm, group_norm, instance_norm (issue #10)."""
from __future__ import annotations

from .core import Case, OpSpec  # noqa: F401

SPECS: list = []
