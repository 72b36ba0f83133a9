"""InferMeta of the pooling ops: max/avg/adaptive pooling, unfold and fold (issue #10)."""
from __future__ import annotations

__all__: list = []
