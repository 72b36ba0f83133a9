"""Paddle's ``paddle.incubate.nn.functional.fused_ec_moe`` path (the same function)."""
from .moe import fused_ec_moe

__all__ = ["fused_ec_moe"]
