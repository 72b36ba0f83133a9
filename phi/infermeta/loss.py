"""InferMeta of the loss ops beyond the spine's cross-entropy pair (issue #10)."""
from __future__ import annotations

__all__: list = []
