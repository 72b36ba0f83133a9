"""InferMeta of the normalization ops: batch_norm, layer_norm, group_norm, instance_norm (issue #10)."""
from __future__ import annotations

__all__: list = []
