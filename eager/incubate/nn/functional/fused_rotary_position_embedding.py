"""Paddle's ``paddle.incubate.nn.functional.fused_rotary_position_embedding`` path
(the same function)."""
from .rotary import fused_rotary_position_embedding

__all__ = ["fused_rotary_position_embedding"]
