"""Paddle's ``paddle.incubate.nn.layer.fused_linear`` path: FusedLinear of
:mod:`eager.incubate.nn.layer` (the same objects)."""
from . import FusedLinear

__all__ = ["FusedLinear"]
