"""Paddle's ``paddle.incubate.nn.layer.fused_dropout_add`` path: FusedDropoutAdd of
:mod:`eager.incubate.nn.layer` (the same objects)."""
from . import FusedDropoutAdd

__all__ = ["FusedDropoutAdd"]
