"""Sparse 3-d max pooling layer (Paddle's paddle.sparse.nn.MaxPool3D), calling
eager.sparse.nn.functional.max_pool3d.

>>> x = eager.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 0], [0, 1]], [[1.0], [-2.0]], [1, 2, 2, 2, 1])
>>> eager.sparse.nn.MaxPool3D(2)(x).shape
[1, 1, 1, 1, 1]
"""
from __future__ import annotations

from ...nn.layer import Layer
from .functional.pooling import max_pool3d


class MaxPool3D(Layer):
    """Layer form of :func:`eager.sparse.nn.functional.max_pool3d` (``return_mask`` must be False)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, return_mask=False, data_format="NDHWC",
                 name=None):
        super().__init__()
        self._name = name
        if return_mask is not False:
            raise ValueError(f"sparse.nn.MaxPool3D: only return_mask=False is supported, got {return_mask!r}")
        self._kernel_size, self._stride, self._padding = kernel_size, stride, padding
        self._ceil_mode, self._data_format = ceil_mode, data_format

    def forward(self, x):
        """The max pooling of x."""
        return max_pool3d(x, self._kernel_size, self._stride, self._padding, self._ceil_mode, self._data_format)

    def extra_repr(self) -> str:
        return f"kernel_size={self._kernel_size}, stride={self._stride}, padding={self._padding}"


__all__ = ["MaxPool3D"]
