"""InferMeta of the rearrange ops (group rearrange of phi/kernels)."""
from __future__ import annotations

__all__: list = []
