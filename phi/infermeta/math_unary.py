"""InferMeta of the math unary ops (group math_unary of phi/kernels)."""
from __future__ import annotations

__all__: list = []
