"""Sparse 3-d max pooling (Paddle's paddle.sparse.nn.functional.max_pool3d) of a
COO tensor ``[N, D, H, W, C]``: each output the channel-wise maximum of the
stored inputs in its window (unstored entries take no part), stored wherever
some input reaches. The pairs come from phi's convolution rulebook; the
maximum is a segment max, so the gradient reaches the maximal inputs.

>>> x = eager.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 0], [0, 1]], [[1.0], [-2.0]], [1, 2, 2, 2, 1])
>>> eager.sparse.nn.functional.max_pool3d(x, 2).values().numpy().ravel()
array([1.], dtype=float32)
"""
from __future__ import annotations

from phi.api import sparse as phi_sparse
from phi.core.sparse_tensor import coo_from_parts

from ....composite import _paddle_api as _check
from ....geometric import segment_max
from ....generated import forward_api as _F
from ....tensor import Tensor
from ..._core import COO, expect_sparse, from_values, values_of
from ...creation import coalesce
from .conv import _triple


@_check.composed_in("sparse.nn.functional")
def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NDHWC", name=None):
    """Channel-wise max over each window of the stored inputs (stride defaults to kernel_size)."""
    op = "sparse.nn.functional.max_pool3d"
    expect_sparse(op, "x", x, (COO,))
    if x.ndim != 5 or x.impl.sparse_dim != 4:
        raise ValueError(f"{op}: x must be a COO tensor [N, D, H, W, C] with 4 sparse dimensions, got shape "
                         f"{x.shape} with sparse_dim {x.impl.sparse_dim}")
    if ceil_mode is not False:
        raise ValueError(f"{op}: only ceil_mode=False is supported, got {ceil_mode!r}")
    if not isinstance(data_format, str) or data_format != "NDHWC":
        raise ValueError(f"{op}: argument 'data_format' expected 'NDHWC', got {data_format!r}")
    kernel = _triple(op, "kernel_size", kernel_size, 1)
    stride = kernel if stride is None else _triple(op, "stride", stride, 1)
    padding = _triple(op, "padding", padding, 0)
    out_spatial = tuple((size + 2 * p - k) // s + 1 for size, k, s, p in zip(x.shape[1:4], kernel, stride, padding))
    if any(o < 1 for o in out_spatial):
        raise ValueError(f"{op}: the output would be empty ({list(out_spatial)}) for input {x.shape[1:4]}, kernel "
                         f"{list(kernel)}, stride {list(stride)}, padding {list(padding)}")
    x = coalesce(x)
    out_indices, in_pos, out_pos, _ = phi_sparse.conv3d_rulebook(
        x.impl.indices, x.shape, out_spatial, kernel, stride, padding, (1, 1, 1), False)
    out_pos = Tensor(out_pos)
    order = _F.argsort(out_pos, stable=True)  # segment_max reads sorted segment ids
    gathered = _F.index_select(values_of(x), _F.index_select(Tensor(in_pos), order, 0), 0)
    out = segment_max(gathered, _F.index_select(out_pos, order, 0))
    shape = [x.shape[0], *out_spatial, x.shape[4]]
    return from_values(out, coo_from_parts(out_indices, out.impl, shape, coalesced=True))


__all__ = ["max_pool3d"]
