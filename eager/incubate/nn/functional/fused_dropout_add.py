"""Paddle's ``paddle.incubate.nn.functional.fused_dropout_add`` path (the same function)."""
from .activation import fused_dropout_add

__all__ = ["fused_dropout_add"]
