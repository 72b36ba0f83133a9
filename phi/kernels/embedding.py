"""Kernels of the embedding ops, whose sparse gradient is a SelectedRows (issue #10)."""
from __future__ import annotations
