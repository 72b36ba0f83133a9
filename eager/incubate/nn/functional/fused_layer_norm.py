"""Paddle's ``paddle.incubate.nn.functional.fused_layer_norm`` path (the same
function), which scripts import from."""
from .norm import fused_layer_norm

__all__ = ["fused_layer_norm"]
