"""Paddle's ``paddle.nn.layer.activation`` path: the layers Paddle defines in that file, re-exported
from the eager.nn modules that implement them (the objects of ``eager.nn``, not copies)."""
from ..activation import (CELU, ELU, GLU, GELU, Hardshrink, Hardswish, Hardtanh, PReLU, RReLU, ReLU6, SELU,
    LeakyReLU, Hardsigmoid, Softplus, Softshrink, Softsign, Swish, Mish, Tanhshrink, ThresholdedReLU, Silu,
    LogSigmoid, LogSoftmax, Maxout, Softmax2D)
from ..layers import Tanh, ReLU, Sigmoid, Softmax

__all__ = ['CELU', 'ELU', 'GLU', 'GELU', 'Hardshrink', 'Hardswish', 'Tanh', 'Hardtanh', 'PReLU', 'RReLU', 'ReLU',
           'ReLU6', 'SELU', 'LeakyReLU', 'Sigmoid', 'Hardsigmoid', 'Softplus', 'Softshrink', 'Softsign', 'Swish',
           'Mish', 'Tanhshrink', 'ThresholdedReLU', 'Silu', 'LogSigmoid', 'Softmax', 'LogSoftmax', 'Maxout',
           'Softmax2D']
