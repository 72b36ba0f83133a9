"""Kernels of the dropout and attention ops (issue #10)."""
from __future__ import annotations
