"""InferMeta of the creation ops (group creation of phi/kernels)."""
from __future__ import annotations

__all__: list = []
