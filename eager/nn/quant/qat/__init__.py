"""The layers QAT/PTQ swap in for Linear and Conv2D (Paddle's paddle.nn.quant.qat)."""
from .conv import QuantedConv2D
from .linear import QuantedLinear

__all__ = ["QuantedConv2D", "QuantedLinear"]
