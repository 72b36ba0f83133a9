"""InferMeta of the gather scatter ops (group gather_scatter of phi/kernels)."""
from __future__ import annotations

__all__: list = []
