"""InferMeta of the math binary ops (group math_binary of phi/kernels)."""
from __future__ import annotations

__all__: list = []
