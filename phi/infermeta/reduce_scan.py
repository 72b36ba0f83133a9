"""InferMeta of the reduce scan ops (group reduce_scan of phi/kernels)."""
from __future__ import annotations

__all__: list = []
