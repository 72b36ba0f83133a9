"""Sparse convolution layers (Paddle's paddle.sparse.nn.Conv3D, SubmConv3D,
Conv2D and SubmConv2D): a weight ``[kD, kH, kW, in_channels, out_channels]``
(``[kH, kW, in_channels, out_channels]`` in 2-d) and a bias, calling
eager.sparse.nn.functional's conv3d / subm_conv3d / conv2d / subm_conv2d.

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


class _ConvNd(Layer):
    _subm = False
    _dims = 3
    _data_format = "NDHWC"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format=None):
        super().__init__()
        who = f"sparse.nn.{type(self).__name__}"
        self._in_channels = to_int(in_channels, who, "in_channels")
        self._out_channels = to_int(out_channels, who, "out_channels")
        if self._in_channels < 1 or self._out_channels < 1:
            raise ValueError(f"{who}: in_channels and out_channels must be >= 1, got {in_channels} and "
                             f"{out_channels}")
        if groups != 1:
            raise ValueError(f"{who}: only groups=1 is supported, got groups={groups!r}")
        if not isinstance(padding_mode, str) or padding_mode != "zeros":
            raise ValueError(f"{who}: only padding_mode='zeros' is supported, got {padding_mode!r}")
        if data_format != self._data_format:
            raise ValueError(f"{who}: argument 'data_format' expected {self._data_format!r}, got {data_format!r}")
        n = self._dims
        self._kernel_size = F.spatial(who, "kernel_size", kernel_size, 1, n)
        self._stride = F.spatial(who, "stride", stride, 1, n)
        self._padding = F.spatial(who, "padding", padding, 0, n)
        self._given_padding = padding
        self._dilation = F.spatial(who, "dilation", dilation, 1, n)
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
        if self._dims == 3:
            function = F.subm_conv3d if self._subm else F.conv3d
        else:
            function = F.subm_conv2d if self._subm else F.conv2d
        return function(x, self.weight, self.bias, self._stride, self._padding, self._dilation)

    def extra_repr(self) -> str:
        # Paddle's text: the defaults left out, padding as given
        text = f"{self._in_channels}, {self._out_channels}, kernel_size={list(self._kernel_size)}"
        if any(v != 1 for v in self._stride):
            text += f", stride={list(self._stride)}"
        if self._given_padding != 0:
            text += f", padding={self._given_padding}"
        if any(v != 1 for v in self._dilation):
            text += f", dilation={list(self._dilation)}"
        return text + f", data_format={self._data_format}"


class Conv3D(_ConvNd):
    """Sparse 3-d convolution layer: outputs wherever a stored input reaches
    (see :func:`eager.sparse.nn.functional.conv3d`)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NDHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr, data_format)


class SubmConv3D(_ConvNd):
    """Submanifold sparse 3-d convolution layer: outputs at the input's stored
    coordinates only, the kernel centred on each (see
    :func:`eager.sparse.nn.functional.subm_conv3d`). ``key`` is accepted and unused."""

    _subm = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", key=None, weight_attr=None, bias_attr=None, data_format="NDHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr, data_format)


class Conv2D(_ConvNd):
    """Sparse 2-d convolution layer of a COO input ``[N, H, W, C]``, weight
    ``[kH, kW, in_channels, out_channels]``: outputs wherever a stored input reaches
    (see :func:`eager.sparse.nn.functional.conv2d`).

    >>> conv = eager.sparse.nn.Conv2D(1, 2, 3)
    >>> x = eager.sparse.sparse_coo_tensor([[0], [1], [2]], [[1.0]], [1, 4, 5, 1])
    >>> conv(x).shape, conv(x).nnz()
    ([1, 2, 3, 2], 6)
    """

    _dims = 2
    _data_format = "NHWC"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr, data_format)


class SubmConv2D(_ConvNd):
    """Submanifold sparse 2-d convolution layer: outputs at the input's stored
    coordinates only, the kernel centred on each (see
    :func:`eager.sparse.nn.functional.subm_conv2d`). ``key`` is accepted and unused."""

    _subm = True
    _dims = 2
    _data_format = "NHWC"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", key=None, weight_attr=None, bias_attr=None, data_format="NHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr, data_format)


__all__ = ["Conv2D", "Conv3D", "SubmConv2D", "SubmConv3D"]
