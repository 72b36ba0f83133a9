"""Sparse convolutions (Paddle's paddle.sparse.nn.functional.conv3d,
subm_conv3d, conv2d and subm_conv2d) of a COO tensor ``[N, D, H, W, C]``
(``[N, H, W, C]`` in 2-d; every dimension but the channels sparse, values
``[nnz, C]``) with a dense weight ``[kD, kH, kW, C, out_channels]``
(``[kH, kW, C, out_channels]``).

phi's rulebook kernel pairs each stored input with the outputs it reaches
through each kernel offset; the values then go through one gather, one matmul
per offset and one index_add, so the cost grows with the pairs, not with the
volume, and the values, weight and bias get gradients from the engine.
``conv3d`` stores every output some input reaches; ``subm_conv3d``
(submanifold) keeps the input's pattern: as in Paddle it centres the kernel on
each stored input (stride 1, padding ``kernel // 2``), whatever stride and
padding it is given. The 2-d functions run the 3-d ones on a depth of 1.

>>> x = eager.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 1], [1, 1]], [[1.0], [2.0]], [1, 2, 3, 3, 1])
>>> w = eager.ones([3, 3, 3, 1, 1])
>>> eager.sparse.nn.functional.subm_conv3d(x, w).values().numpy().ravel()
array([3., 3.], dtype=float32)
"""
from __future__ import annotations

from phi.api import sparse as phi_sparse
from phi.core.sparse_tensor import coo_from_parts

from ....arguments import to_int_array
from ....composite import _paddle_api as _check
from ....composite.spine import reshape_exactly  # _F.reshape reads a 0 as 'keep that dimension'
from ....generated import forward_api as _F
from ....tensor import Tensor
from ..._core import COO, coo_indices, expect_dense, expect_sparse, from_values, values_of, zeros
from ...creation import coalesce



def spatial(op: str, arg: str, value, minimum: int, n: int = 3) -> tuple:
    """An int or ``n`` ints, each >= minimum, as an n-tuple (ValueError naming op and arg otherwise)."""
    values = to_int_array([value] * n if isinstance(value, int) and not isinstance(value, bool) else value, op, arg)
    if len(values) != n or any(v < minimum for v in values):
        raise ValueError(f"{op}: argument '{arg}' expected an int or {n} ints >= {minimum}, got {value!r}")
    return tuple(values)


def _triple(op: str, arg: str, value, minimum: int) -> tuple:
    return spatial(op, arg, value, minimum, 3)


def _convolve(op: str, x, weight, bias, stride, padding, dilation, groups, data_format, subm: bool):
    expect_sparse(op, "x", x, (COO,))
    expect_dense(op, "weight", weight)
    if not isinstance(data_format, str) or data_format != "NDHWC":
        raise ValueError(f"{op}: argument 'data_format' expected 'NDHWC', got {data_format!r}")
    if groups != 1:
        raise ValueError(f"{op}: only groups=1 is supported, got groups={groups!r}")
    if x.ndim != 5 or x.impl.sparse_dim != 4:
        raise ValueError(f"{op}: x must be a COO tensor [N, D, H, W, C] with 4 sparse dimensions, got shape "
                         f"{x.shape} with sparse_dim {x.impl.sparse_dim}")
    if weight.ndim != 5 or weight.shape[3] != x.shape[4] or 0 in weight.shape[:3]:
        raise ValueError(f"{op}: weight must be [kD, kH, kW, {x.shape[4]}, out_channels] (kernel sizes >= 1) for x "
                         f"of shape {x.shape}, got {weight.shape}")
    if weight.dtype != x.dtype:
        raise TypeError(f"{op}: x and weight must have one dtype, got {x.dtype} and {weight.dtype}")
    stride, padding = _triple(op, "stride", stride, 1), _triple(op, "padding", padding, 0)
    dilation = _triple(op, "dilation", dilation, 1)
    kernel = tuple(weight.shape[:3])
    if subm:  # the kernel centred on each input, as Paddle does whatever stride and padding are given
        stride, padding = (1, 1, 1), tuple(k // 2 for k in kernel)
    out_spatial = tuple((size + 2 * p - d * (k - 1) - 1) // s + 1
                        for size, k, s, p, d in zip(x.shape[1:4], kernel, stride, padding, dilation))
    if any(o < 1 for o in out_spatial):
        raise ValueError(f"{op}: the output would be empty ({list(out_spatial)}) for input {x.shape[1:4]}, kernel "
                         f"{list(kernel)}, stride {list(stride)}, padding {list(padding)}, dilation {list(dilation)}")
    if subm and out_spatial != tuple(x.shape[1:4]):
        raise ValueError(f"{op}: a submanifold convolution centres the kernel on each input (stride 1, padding "
                         f"kernel // 2) and must keep the spatial size {x.shape[1:4]}, but kernel {list(kernel)} "
                         f"with dilation {list(dilation)} gives {list(out_spatial)}")
    out_channels = weight.shape[4]
    if bias is not None:
        expect_dense(op, "bias", bias)
        if bias.shape != [out_channels] or bias.dtype != x.dtype:
            raise ValueError(f"{op}: bias must be {x.dtype}[{out_channels}], got {bias.dtype}{bias.shape}")
    x = coalesce(x)
    out_indices, in_pos, out_pos, counts = phi_sparse.conv3d_rulebook(
        x.impl.indices, x.shape, out_spatial, kernel, stride, padding, dilation, subm)
    values = values_of(x)
    taps = reshape_exactly(weight, [len(counts), x.shape[4], out_channels])
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


def _convolve2d(op: str, x, weight, bias, stride, padding, dilation, groups, data_format, subm: bool):
    """The 2-d convolution as a 3-d one of depth 1: x ``[N, H, W, C]`` -> ``[N, 1, H, W, C]``
    and weight ``[kH, kW, C, M]`` -> ``[1, kH, kW, C, M]``, the depth dropped from the result."""
    expect_sparse(op, "x", x, (COO,))
    expect_dense(op, "weight", weight)
    if not isinstance(data_format, str) or data_format != "NHWC":
        raise ValueError(f"{op}: argument 'data_format' expected 'NHWC', got {data_format!r}")
    if x.ndim != 4 or x.impl.sparse_dim != 3:
        raise ValueError(f"{op}: x must be a COO tensor [N, H, W, C] with 3 sparse dimensions, got shape "
                         f"{x.shape} with sparse_dim {x.impl.sparse_dim}")
    if weight.ndim != 4 or weight.shape[2] != x.shape[3] or 0 in weight.shape[:2]:
        raise ValueError(f"{op}: weight must be [kH, kW, {x.shape[3]}, out_channels] (kernel sizes >= 1) for x of "
                         f"shape {x.shape}, got {weight.shape}")
    stride, padding = spatial(op, "stride", stride, 1, 2), spatial(op, "padding", padding, 0, 2)
    dilation = spatial(op, "dilation", dilation, 1, 2)
    indices = coo_indices(x)
    deep = from_values(values_of(x), coo_from_parts(
        _F.concat([indices[:1], _F.zeros_like(indices[:1]), indices[1:]], 0).impl, x.impl.values,
        [x.shape[0], 1, *x.shape[1:]], x.impl.coalesced))
    out = _convolve(op, deep, _F.unsqueeze(weight, [0]), bias, (1, *stride), (0, *padding), (1, *dilation), groups,
                    "NDHWC", subm)
    flat = coo_indices(out)
    pattern = coo_from_parts(_F.concat([flat[:1], flat[2:]], 0).impl, out.impl.values,
                             [out.shape[0], *out.shape[2:]], out.impl.coalesced)
    return from_values(values_of(out), pattern)


@_check.composed_in("sparse.nn.functional")
def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", name=None):
    """Sparse 3-d convolution: an output is stored wherever some stored input reaches it."""
    return _convolve("sparse.nn.functional.conv3d", x, weight, bias, stride, padding, dilation, groups, data_format,
                     subm=False)


@_check.composed_in("sparse.nn.functional")
def subm_conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", key=None,
                name=None):
    """Submanifold sparse 3-d convolution: outputs only at x's stored coordinates,
    the kernel centred on each: stride 1 and padding ``kernel // 2``, whatever
    stride and padding are given (as in Paddle); the kernel and dilation must keep
    the spatial size (odd kernel sizes with dilation 1 do). ``key`` (Paddle's rulebook cache name) is
    accepted and unused: the rulebook is built on each call."""
    return _convolve("sparse.nn.functional.subm_conv3d", x, weight, bias, stride, padding, dilation, groups,
                     data_format, subm=True)


@_check.composed_in("sparse.nn.functional")
def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC", name=None):
    """Sparse 2-d convolution of a COO x ``[N, H, W, C]`` with a weight ``[kH, kW, C, M]``:
    an output is stored wherever some stored input reaches it.

    >>> x = eager.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 2]], [[1.0], [2.0]], [1, 2, 3, 1])
    >>> eager.sparse.nn.functional.conv2d(x, eager.ones([2, 2, 1, 1])).to_dense().numpy().ravel()
    array([1., 3.], dtype=float32)
    """
    return _convolve2d("sparse.nn.functional.conv2d", x, weight, bias, stride, padding, dilation, groups,
                       data_format, subm=False)


@_check.composed_in("sparse.nn.functional")
def subm_conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC", key=None,
                name=None):
    """Submanifold sparse 2-d convolution: outputs only at x's stored coordinates,
    the kernel centred on each (see :func:`subm_conv3d`).

    >>> x = eager.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 2]], [[1.0], [2.0]], [1, 2, 3, 1])
    >>> eager.sparse.nn.functional.subm_conv2d(x, eager.ones([3, 3, 1, 1])).values().numpy().ravel()
    array([3., 3.], dtype=float32)
    """
    return _convolve2d("sparse.nn.functional.subm_conv2d", x, weight, bias, stride, padding, dilation, groups,
                       data_format, subm=True)


__all__ = ["conv2d", "conv3d", "subm_conv2d", "subm_conv3d"]
