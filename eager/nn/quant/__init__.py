"""Paddle's paddle.nn.quant: the Stub placeholder, the quantized layers QAT/PTQ
swap in (paddle.nn.quant.qat), the layers a converted model holds
(paddle.nn.quant.format) and weight-only int8 quantization."""
from . import format, qat  # noqa: A004
from .quantized_linear import weight_dequantize, weight_only_linear, weight_quantize
from .stub import QuanterStub, Stub

__all__ = ["Stub", "weight_only_linear", "weight_quantize", "weight_dequantize"]
