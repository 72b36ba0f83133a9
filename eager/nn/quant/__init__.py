"""Paddle's paddle.nn.quant: the Stub placeholder, the quantized layers QAT/PTQ
swap in (paddle.nn.quant.qat), the layers a converted model holds
(paddle.nn.quant.format), weight-only int8 quantization, LLM.int8
(llm_int8_linear) and the fake-quant layers of Paddle's older dynamic-graph
quantization (paddle.nn.quant.quant_layers, whose QuantStub Paddle also imports
here)."""
from . import format, functional_layers, lsq, qat, quant_layers  # noqa: A004
from .functional_layers import (FloatFunctionalLayer, add, concat, divide, flatten, matmul, multiply,  # noqa: A004
                                reshape, subtract, transpose)
from .quant_layers import QuantStub
from .quantized_linear import llm_int8_linear, weight_dequantize, weight_only_linear, weight_quantize
from .stub import QuanterStub, Stub

__all__ = ["Stub", "weight_only_linear", "llm_int8_linear", "weight_quantize", "weight_dequantize"]
