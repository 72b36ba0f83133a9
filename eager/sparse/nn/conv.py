"""Sparse 3-d convolution layers (Paddle's paddle.sparse.nn.Conv3D and
SubmConv3D): a weight ``[kD, kH, kW, in_channels, out_channels]`` and a bias,
calling eager.sparse.nn.functional's conv3d / subm_conv3d.

>>> layer = eager.sparse.nn.SubmConv3D(1, 4, 3, padding=1)
>>> x = eager.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 1], [1, 1]], [[1.0], [2.0]], [1, 2, 3, 3, 1])
>>> layer(x).shape, layer(x).nnz()
([1, 2, 3, 3, 4], 2)
"""
from __future__ import annotations

import numpy as np

from ...arguments import to_int
from ...nn import initializer as _init
from ...nn.layer import Layer, ParamAttr
from .functional import conv as F


class _Conv3D(Layer):
    _subm = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NDHWC"):
        super().__init__()
        who = f"sparse.nn.{type(self).__name__}"
        self._in_channels = to_int(in_channels, who, "in_channels")
        self._out_channels = to_int(out_channels, who, "out_channels")
        if self._in_channels < 1 or self._out_channels < 1:
            raise ValueError(f"{who}: in_channels and out_channels must be >= 1, got {in_channels} and "
                             f"{out_channels}")
        if groups != 1:
            raise ValueError(f"{who}: only groups=1 is supported, got groups={groups!r}")
        if padding_mode != "zeros":
            raise ValueError(f"{who}: only padding_mode='zeros' is supported, got {padding_mode!r}")
        if data_format != "NDHWC":
            raise ValueError(f"{who}: argument 'data_format' expected 'NDHWC', got {data_format!r}")
        self._kernel_size = F._triple(who, "kernel_size", kernel_size, 1)
        self._stride = F._triple(who, "stride", stride, 1)
        self._padding = F._triple(who, "padding", padding, 0)
        self._dilation = F._triple(who, "dilation", dilation, 1)
        std = (2.0 / (np.prod(self._kernel_size) * self._in_channels)) ** 0.5
        weight_attr = ParamAttr.from_argument(weight_attr, who, "weight_attr")
        if weight_attr is False:
            raise ValueError(f"{who}: argument 'weight_attr' cannot be False: a convolution needs a weight")
        self.weight = self.create_parameter([*self._kernel_size, self._in_channels, self._out_channels], weight_attr,
                                            default_initializer=_init.Normal(0.0, float(std)))
        self.bias = self.create_parameter([self._out_channels], ParamAttr.from_argument(bias_attr, who, "bias_attr"),
                                          is_bias=True)

    def forward(self, x):
        """The sparse convolution of x with this layer's weight and bias."""
        function = F.subm_conv3d if self._subm else F.conv3d
        return function(x, self.weight, self.bias, self._stride, self._padding, self._dilation)

    def extra_repr(self) -> str:
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={list(self._kernel_size)}, "
                f"stride={list(self._stride)}, padding={list(self._padding)}, dilation={list(self._dilation)}")


class Conv3D(_Conv3D):
    """Sparse 3-d convolution layer: outputs wherever a stored input reaches
    (see :func:`eager.sparse.nn.functional.conv3d`)."""


class SubmConv3D(_Conv3D):
    """Submanifold sparse 3-d convolution layer: outputs at the input's stored
    coordinates only (see :func:`eager.sparse.nn.functional.subm_conv3d`).
    ``key`` is accepted and unused."""

    _subm = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", key=None, weight_attr=None, bias_attr=None, data_format="NDHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr, data_format)


__all__ = ["Conv3D", "SubmConv3D"]
