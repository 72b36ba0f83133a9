"""Sparse 3-d convolutions (Paddle's paddle.sparse.nn.functional.conv3d and
subm_conv3d) of a COO tensor ``[N, D, H, W, C]`` (4 sparse dimensions, values
``[nnz, C]``) with a dense weight ``[kD, kH, kW, C, out_channels]``.

phi's rulebook kernel pairs each stored input with the outputs it reaches
through each kernel offset; the values then go through one gather, one matmul
per offset and one index_add, so the cost grows with the pairs, not with the
volume, and the values, weight and bias get gradients from the engine.
``conv3d`` stores every output some input reaches; ``subm_conv3d``
(submanifold) keeps the input's pattern.

>>> x = eager.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 1], [1, 1]], [[1.0], [2.0]], [1, 2, 3, 3, 1])
>>> w = eager.ones([3, 3, 3, 1, 1])
>>> eager.sparse.nn.functional.subm_conv3d(x, w, padding=1).values().numpy().ravel()
array([3., 3.], dtype=float32)
"""
from __future__ import annotations

from phi.api import sparse as phi_sparse
from phi.core.sparse_tensor import coo_from_parts

from ....arguments import to_int_array
from ....composite import _paddle_api as _check
from ....generated import forward_api as _F
from ....tensor import Tensor
from ..._core import COO, expect_dense, expect_sparse, from_values, values_of, zeros
from ...creation import coalesce



def _triple(op: str, arg: str, value, minimum: int) -> tuple:
    values = to_int_array([value] * 3 if isinstance(value, int) and not isinstance(value, bool) else value, op, arg)
    if len(values) != 3 or any(v < minimum for v in values):
        raise ValueError(f"{op}: argument '{arg}' expected an int or 3 ints >= {minimum}, got {value!r}")
    return tuple(values)


def _convolve(op: str, x, weight, bias, stride, padding, dilation, groups, data_format, subm: bool):
    expect_sparse(op, "x", x, (COO,))
    expect_dense(op, "weight", weight)
    if data_format != "NDHWC":
        raise ValueError(f"{op}: argument 'data_format' expected 'NDHWC', got {data_format!r}")
    if groups != 1:
        raise ValueError(f"{op}: only groups=1 is supported, got groups={groups!r}")
    if x.ndim != 5 or x.impl.sparse_dim != 4:
        raise ValueError(f"{op}: x must be a COO tensor [N, D, H, W, C] with 4 sparse dimensions, got shape "
                         f"{x.shape} with sparse_dim {x.impl.sparse_dim}")
    if weight.ndim != 5 or weight.shape[3] != x.shape[4]:
        raise ValueError(f"{op}: weight must be [kD, kH, kW, {x.shape[4]}, out_channels] for x of shape {x.shape}, "
                         f"got {weight.shape}")
    if weight.dtype != x.dtype:
        raise TypeError(f"{op}: x and weight must have one dtype, got {x.dtype} and {weight.dtype}")
    stride, padding = _triple(op, "stride", stride, 1), _triple(op, "padding", padding, 0)
    dilation = _triple(op, "dilation", dilation, 1)
    kernel = tuple(weight.shape[:3])
    out_spatial = tuple((size + 2 * p - d * (k - 1) - 1) // s + 1
                        for size, k, s, p, d in zip(x.shape[1:4], kernel, stride, padding, dilation))
    if any(o < 1 for o in out_spatial):
        raise ValueError(f"{op}: the output would be empty ({list(out_spatial)}) for input {x.shape[1:4]}, kernel "
                         f"{list(kernel)}, stride {list(stride)}, padding {list(padding)}, dilation {list(dilation)}")
    if subm and out_spatial != tuple(x.shape[1:4]):
        raise ValueError(f"{op}: a submanifold convolution keeps the spatial size {x.shape[1:4]}, but stride "
                         f"{list(stride)}, padding {list(padding)} and dilation {list(dilation)} give "
                         f"{list(out_spatial)} (use stride 1 and padding (kernel - 1) // 2 * dilation)")
    out_channels = weight.shape[4]
    if bias is not None:
        expect_dense(op, "bias", bias)
        if bias.shape != [out_channels] or bias.dtype != x.dtype:
            raise ValueError(f"{op}: bias must be {x.dtype}[{out_channels}], got {bias.dtype}{bias.shape}")
    x = coalesce(x)
    out_indices, in_pos, out_pos, counts = phi_sparse.conv3d_rulebook(
        x.impl.indices, x.shape, out_spatial, kernel, stride, padding, dilation, subm)
    values = values_of(x)
    taps = _F.reshape(weight, [len(counts), x.shape[4], out_channels])
    gathered = _F.index_select(values, Tensor(in_pos), 0)
    pieces, start = [], 0
    for k, count in enumerate(counts):
        if count:
            pieces.append(_F.matmul(gathered[start:start + count], taps[k]))
        start += count
    out = zeros([out_indices.dims[1], out_channels], x.dtype, x.place)
    if pieces:
        out = _F.index_add(out, Tensor(out_pos), _F.concat(pieces, 0), 0)
    if bias is not None:
        out = _F.add(out, bias)
    shape = [x.shape[0], *out_spatial, out_channels]
    return from_values(out, coo_from_parts(out_indices, out.impl, shape, coalesced=True))


@_check.composed_in("sparse.nn.functional")
def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", name=None):
    """Sparse 3-d convolution: an output is stored wherever some stored input reaches it."""
    return _convolve("sparse.nn.functional.conv3d", x, weight, bias, stride, padding, dilation, groups, data_format,
                     subm=False)


@_check.composed_in("sparse.nn.functional")
def subm_conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", key=None,
                name=None):
    """Submanifold sparse 3-d convolution: outputs only at x's stored coordinates
    (stride 1, a padding that keeps the size). ``key`` (Paddle's rulebook cache
    name) is accepted and unused: the rulebook is built on each call."""
    return _convolve("sparse.nn.functional.subm_conv3d", x, weight, bias, stride, padding, dilation, groups,
                     data_format, subm=True)


__all__ = ["conv3d", "subm_conv3d"]
