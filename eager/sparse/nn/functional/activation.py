"""Activations of sparse tensors (Paddle's paddle.sparse.nn.functional.relu,
relu6, leaky_relu, softmax).

relu, relu6 and leaky_relu act on the stored values (the pattern kept);
softmax normalizes the stored values that share every coordinate but the
axis's, the unstored entries counting as absent, not as 0.

>>> x = eager.sparse.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1.0, 1.0, 5.0], [2, 3])
>>> eager.sparse.nn.functional.softmax(x).values().numpy()
array([0.5, 0.5, 1. ], dtype=float32)
"""
from __future__ import annotations

from phi.core.errors import UnimplementedError

from ....arguments import to_float, to_int
from ....autograd.grad_mode import no_grad
from ....composite import _paddle_api as _check
from ....geometric import segment_max, segment_sum
from ....generated import forward_api as _F
from ..._core import COO, coo_indices, expect_sparse, from_values, values_of
from ...creation import coalesce
from ...unary import apply_to_values


def _floating(op: str, x):
    expect_sparse(op, "x", x)
    if not x.dtype.is_floating_point:
        raise TypeError(f"{op}: argument 'x' expected a floating-point sparse tensor, got {x.dtype}")


@_check.composed_in("sparse.nn.functional")
def relu(x, name=None):
    """max(x, 0) of each stored value; x's pattern kept.

    >>> x = eager.sparse.sparse_coo_tensor([[0, 2]], [-1.0, 4.0], [3])
    >>> eager.sparse.nn.functional.relu(x).values().numpy()
    array([0., 4.], dtype=float32)
    """
    _floating("sparse.nn.functional.relu", x)
    return apply_to_values("sparse.nn.functional.relu", x, _F.relu)


@_check.composed_in("sparse.nn.functional")
def relu6(x, name=None):
    """min(max(x, 0), 6) of each stored value; x's pattern kept."""
    _floating("sparse.nn.functional.relu6", x)
    return apply_to_values("sparse.nn.functional.relu6", x, lambda v: _F.hardtanh(v, 0.0, 6.0))


@_check.composed_in("sparse.nn.functional")
def leaky_relu(x, negative_slope=0.01, name=None):
    """x where x >= 0, negative_slope * x elsewhere, of each stored value; x's pattern kept."""
    op = "sparse.nn.functional.leaky_relu"
    _floating(op, x)
    slope = to_float(negative_slope, op, "negative_slope")
    return apply_to_values(op, x, lambda v: _F.leaky_relu(v, slope))


@_check.composed_in("sparse.nn.functional")
def softmax(x, axis=-1, name=None):
    """Softmax of a sparse tensor along ``axis``: the stored entries that share
    every other coordinate are exp-normalized among themselves (unstored ones
    count as absent, not as 0). A CSR x takes the last axis only; a COO x any
    axis, a dense dimension of a hybrid COO within each stored block (as a dense
    softmax). A COO x is coalesced first (its result is coalesced)."""
    op = "sparse.nn.functional.softmax"
    _floating(op, x)
    axis = to_int(axis, op, "axis")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"{op}: argument 'axis' expected an int in [{-x.ndim}, {x.ndim}) for a {x.ndim}-d tensor, "
                         f"got {axis}")
    axis %= x.ndim
    if x.impl.kind is COO:
        x = coalesce(x)
        sparse_dim = x.impl.sparse_dim
    elif axis != x.ndim - 1:  # NotImplementedError, as Paddle's kernel refuses it
        raise UnimplementedError(f"{op}: a CSR x takes the last axis (-1) only, got axis={axis} for a {x.ndim}-d "
                                 f"tensor (convert it with to_sparse_coo({x.ndim}) for another axis)")
    else:
        sparse_dim = x.ndim
    values = values_of(x)
    if axis >= sparse_dim:  # a dense dimension: within each stored block
        return from_values(_F.softmax(values, axis - sparse_dim + 1), x.impl)
    indices = coo_indices(x)
    # group id: the row-major position of the sparse coordinates other than axis's
    group = None
    for dim in range(sparse_dim):
        if dim != axis:
            group = indices[dim] if group is None else _F.add(_F.scale(group, float(x.shape[dim]), 0.0, True),
                                                              indices[dim])
    if group is None:  # axis is the only sparse dimension: one group
        group = _F.zeros_like(indices[0])
    order = None
    if axis != sparse_dim - 1:  # coalesced order sorts the groups only when axis is the last sparse dimension
        order = _F.argsort(group, stable=True)
        group, values = _F.index_select(group, order, 0), _F.index_select(values, order, 0)
    # the segment ops take sorted ids; consecutive ones keep their output nnz long
    starts = _F.cast(_F.not_equal(group[1:], group[:-1]), group.dtype)
    segment = _F.cumsum(_F.concat([_F.zeros_like(group[:1]), starts]), 0)
    with no_grad():  # the shift keeps exp finite; softmax does not depend on it
        peak = _F.index_select(segment_max(values.detach(), segment), segment, 0)
    exp = _F.exp(_F.subtract(values, peak))
    out = _F.divide(exp, _F.index_select(segment_sum(exp, segment), segment, 0))
    if order is not None:  # back to x's (coalesced) order
        out = _F.index_select(out, _F.argsort(order), 0)
    return from_values(out, x.impl)


__all__ = ["leaky_relu", "relu", "relu6", "softmax"]
