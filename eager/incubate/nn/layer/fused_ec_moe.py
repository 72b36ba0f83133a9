"""Paddle's ``paddle.incubate.nn.layer.fused_ec_moe`` path: FusedEcMoe of
:mod:`eager.incubate.nn.layer` (the same objects)."""
from . import FusedEcMoe

__all__ = ["FusedEcMoe"]
