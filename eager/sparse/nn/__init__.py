"""Paddle's paddle.sparse.nn: activation layers for sparse tensors (ReLU, ReLU6,
LeakyReLU, Softmax), each calling its twin in eager.sparse.nn.functional,
BatchNorm over the channels of a COO tensor's stored values, and the 3-d
convolutions Conv3D and SubmConv3D (.conv) and MaxPool3D (.pooling).

>>> layer = eager.sparse.nn.ReLU()
>>> x = eager.sparse.sparse_coo_tensor([[0, 2]], [-1.0, 4.0], [3])
>>> layer(x).to_dense().numpy()
array([0., 0., 4.], dtype=float32)
"""
from __future__ import annotations

from ...arguments import to_float, to_int
from ...nn.layer import Layer
from ...nn.norm import BatchNorm1D
from .._core import COO, expect_sparse, from_values, values_of
from . import functional
from .conv import Conv3D, SubmConv3D
from .pooling import MaxPool3D


class ReLU(Layer):
    """Layer form of :func:`eager.sparse.nn.functional.relu`."""

    def __init__(self, name=None):
        super().__init__(name_scope=name)

    def forward(self, x):
        """relu of x's stored values."""
        return functional.relu(x)


class ReLU6(Layer):
    """Layer form of :func:`eager.sparse.nn.functional.relu6`."""

    def __init__(self, name=None):
        super().__init__(name_scope=name)

    def forward(self, x):
        """relu6 of x's stored values."""
        return functional.relu6(x)


class LeakyReLU(Layer):
    """Layer form of :func:`eager.sparse.nn.functional.leaky_relu`."""

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__(name_scope=name)
        self._negative_slope = to_float(negative_slope, "sparse.nn.LeakyReLU", "negative_slope")

    def forward(self, x):
        """leaky_relu of x's stored values."""
        return functional.leaky_relu(x, self._negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self._negative_slope}"


class Softmax(Layer):
    """Layer form of :func:`eager.sparse.nn.functional.softmax` (last axis only)."""

    def __init__(self, axis=-1, name=None):
        super().__init__(name_scope=name)
        self._axis = to_int(axis, "sparse.nn.Softmax", "axis")

    def forward(self, x):
        """Row-wise softmax of x's stored values."""
        return functional.softmax(x, self._axis)

    def extra_repr(self) -> str:
        return f"axis={self._axis}"


class BatchNorm(BatchNorm1D):
    """Batch normalization of a sparse COO tensor ``[N, D, H, W, C]`` (4 sparse
    dimensions, values ``[nnz, C]``): each channel of the stored values normalized
    by their statistics (the unstored entries take no part), the pattern kept
    (Paddle's ``paddle.sparse.nn.BatchNorm``). Running statistics, ``eval()`` and
    ``use_global_stats`` work as in :class:`eager.nn.BatchNorm1D`.

    >>> bn = eager.sparse.nn.BatchNorm(2)
    >>> x = eager.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 0], [1, 0]], [[1.0, 2.0], [3.0, 6.0]], [1, 2, 1, 2, 2])
    >>> bn(x).values().numpy().round(3)
    array([[-1., -1.],
           [ 1.,  1.]], dtype=float32)
    """

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NDHWC", use_global_stats=None, name=None):
        if data_format != "NDHWC":
            raise ValueError(f"sparse.nn.BatchNorm: argument 'data_format' expected 'NDHWC' (channels last, the "
                             f"values' last dimension), got {data_format!r}")
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, "NC", use_global_stats, name)

    def forward(self, x):
        """x with each channel of its stored values batch-normalized."""
        op = "sparse.nn.BatchNorm"
        expect_sparse(op, "x", x, (COO,))
        values = values_of(x)
        if values.ndim != 2 or values.shape[1] != self._num_features:
            raise ValueError(f"{op}: x must store values [nnz, {self._num_features}] (every dimension but the "
                             f"channels sparse), got values of shape {values.shape} for x of shape {x.shape}")
        return from_values(super().forward(values), x.impl)

    def extra_repr(self) -> str:
        return f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"


__all__ = ["BatchNorm", "Conv3D", "LeakyReLU", "MaxPool3D", "ReLU", "ReLU6", "Softmax", "SubmConv3D", "functional"]
