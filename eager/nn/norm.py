"""Normalization layers (Paddle's ``paddle.nn``).

Weights start at one and biases at zero, as in Paddle; ``weight_attr=False``
or ``bias_attr=False`` leaves that parameter out (None).
"""
from __future__ import annotations

import numbers

from ..tensor import Tensor
from . import initializer as _init
from .functional import norm as norm_functional
from .functional.checks import check_tensor
from .layer import Layer, ParamAttr


def _affine(layer: Layer, who: str, shape, weight_attr, bias_attr) -> None:
    """Creates layer.weight (ones) and layer.bias (zeros) of ``shape``, or None."""
    weight_attr = ParamAttr.from_argument(weight_attr, who, "weight_attr")
    bias_attr = ParamAttr.from_argument(bias_attr, who, "bias_attr")
    layer.weight = layer.create_parameter(list(shape), weight_attr, default_initializer=_init.Constant(1.0))
    layer.bias = layer.create_parameter(list(shape), bias_attr, is_bias=True)


def _epsilon(who: str, epsilon) -> float:
    return norm_functional._check_epsilon(who, epsilon)


class LayerNorm(Layer):
    """Layer normalization over the trailing axes ``normalized_shape`` (Paddle's
    ``paddle.nn.LayerNorm``): weight and bias have shape ``normalized_shape``.

    >>> norm = eager.nn.LayerNorm([3])
    >>> norm(eager.ones([2, 3])).shape
    [2, 3]
    """

    def __init__(self, normalized_shape, epsilon: float = 1e-05, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        who = type(self).__name__
        self._normalized_shape = norm_functional.normalized_shape_list(who, normalized_shape)
        self._epsilon = _epsilon(who, epsilon)
        _affine(self, who, self._normalized_shape, weight_attr, bias_attr)

    def forward(self, input: Tensor) -> Tensor:
        """input normalized over its trailing ``normalized_shape`` axes."""
        check_tensor(f"{type(self).__name__}({self._full_name})", "input", input)
        return norm_functional.layer_norm(input, self._normalized_shape, self.weight, self.bias, self._epsilon)

    def extra_repr(self) -> str:
        """The sizes, shown by repr."""
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


__all__ = ["LayerNorm"]
