"""Paddle's paddle.sparse.nn: activation layers for sparse tensors (ReLU, ReLU6,
LeakyReLU, Softmax), each calling its twin in eager.sparse.nn.functional,
BatchNorm and SyncBatchNorm over the channels of a COO tensor's stored values
(.norm), the convolutions Conv3D, SubmConv3D, Conv2D and SubmConv2D (.conv) and
MaxPool3D (.pooling).

>>> layer = eager.sparse.nn.ReLU()
>>> x = eager.sparse.sparse_coo_tensor([[0, 2]], [-1.0, 4.0], [3])
>>> layer(x).to_dense().numpy()
array([0., 0., 4.], dtype=float32)
"""
from __future__ import annotations

from ...arguments import to_float, to_int
from ...nn.layer import Layer, name_repr
from . import functional
from .conv import Conv2D, Conv3D, SubmConv2D, SubmConv3D
from .norm import BatchNorm, SyncBatchNorm
from .pooling import MaxPool3D


class ReLU(Layer):
    """Layer form of :func:`eager.sparse.nn.functional.relu`."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        """relu of x's stored values."""
        return functional.relu(x)

    def extra_repr(self) -> str:
        """A given name, shown by repr (as Paddle's)."""
        return name_repr(self._name, "")


class ReLU6(Layer):
    """Layer form of :func:`eager.sparse.nn.functional.relu6`."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        """relu6 of x's stored values."""
        return functional.relu6(x)

    def extra_repr(self) -> str:
        """A given name, shown by repr (as Paddle's)."""
        return name_repr(self._name, "")


class LeakyReLU(Layer):
    """Layer form of :func:`eager.sparse.nn.functional.leaky_relu`."""

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._name = name
        self._negative_slope = to_float(negative_slope, "sparse.nn.LeakyReLU", "negative_slope")

    def forward(self, x):
        """leaky_relu of x's stored values."""
        return functional.leaky_relu(x, self._negative_slope)

    def extra_repr(self) -> str:
        """A given name, shown by repr (as Paddle's)."""
        return name_repr(self._name, "")


class Softmax(Layer):
    """Layer form of :func:`eager.sparse.nn.functional.softmax` (last axis only)."""

    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._name = name
        self._axis = to_int(axis, "sparse.nn.Softmax", "axis")

    def forward(self, x):
        """Row-wise softmax of x's stored values."""
        return functional.softmax(x, self._axis)

    def extra_repr(self) -> str:
        """A given name, shown by repr (as Paddle's)."""
        return name_repr(self._name, "")


__all__ = ["BatchNorm", "Conv2D", "Conv3D", "LeakyReLU", "MaxPool3D", "ReLU", "ReLU6", "Softmax", "SubmConv2D",
           "SubmConv3D", "SyncBatchNorm", "functional"]
