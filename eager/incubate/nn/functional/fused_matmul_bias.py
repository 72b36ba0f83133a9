"""Paddle's ``paddle.incubate.nn.functional.fused_matmul_bias`` path: the fused
linear functionals (the same functions)."""
from .linear import fused_linear, fused_linear_activation, fused_matmul_bias

__all__ = ["fused_linear", "fused_linear_activation", "fused_matmul_bias"]
