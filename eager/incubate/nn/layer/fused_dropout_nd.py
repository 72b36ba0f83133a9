"""Paddle's ``paddle.incubate.nn.layer.fused_dropout_nd`` path: FusedDropout of
:mod:`eager.incubate.nn.layer` (the same objects)."""
from . import FusedDropout

__all__ = ["FusedDropout"]
