"""Kernels of the recurrent-network ops (issue #10)."""
from __future__ import annotations
