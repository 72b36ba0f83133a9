"""InferMeta of the search sort ops (group search_sort of phi/kernels)."""
from __future__ import annotations

__all__: list = []
