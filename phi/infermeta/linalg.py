"""InferMeta of the linalg ops (group linalg of phi/kernels)."""
from __future__ import annotations

__all__: list = []
